// Fault test on the Temporal dev server: the server is stopped while card-processor callbacks
// arrive, then started again on the same port and database file. The route acknowledges every
// callback while Temporal is down (the events wait in the inbox), the running relay keeps
// trying with backoff, and once the server is back it delivers every event in arrival order per
// payment: each payment settles exactly once, in one run, and its activation hears of it once.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createLogger } from '../../src/http/logger';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import type { ActivationRuns } from '../../src/activations/runs';
import { createPaymentRuns } from '../../src/payments/runs-temporal';
import { createInboxRelay, type InboxRelay } from '../../src/webhooks/relay';
import { activationWorkflowId, stateQuery } from '../../workflows/contracts/activation-contract';
import { paymentWorkflowId, settlementStateQuery } from '../../workflows/contracts/settlement-contract';
import { eventually } from '../helpers/app';
import { freePort } from '../helpers/processes';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createLocalEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';
import {
  createWebhookTestApp,
  inboxRows,
  insertPayment,
  intentEvent,
  paymentRow,
  sendCardEvent,
  type PaymentFixture,
  type WebhookTestApp,
} from '../helpers/webhooks';

jest.setTimeout(120_000);

let tmp: string;
let port: number;
let env: TestWorkflowEnvironment | undefined;
let bundle: WorkflowBundleWithSourceMap;
let w: WebhookTestApp;
let workerConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let relayConnection: Connection;
let relay: InboxRelay;
let activations: ActivationRuns;
const taskQueue = uniqueTaskQueue('relay-fault');

/** The dev server on the same port and SQLite file every time: a stop and a start, not a new server. */
const startTemporal = () => createLocalEnv({ server: { port, dbFilename: path.join(tmp, 'temporal.db') } });

beforeAll(async () => {
  // The worker's core logs every failed poll while the server is stopped, on purpose here: errors only.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, console: {} } },
  });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'relay-fault-'));
  port = await freePort();
  [env, bundle, w] = await Promise.all([
    startTemporal(),
    bundleWorkflows(require.resolve('../fixtures/payment-workflows')),
    createWebhookTestApp(),
  ]);
  const config = { ...w.t.config, TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false };
  // The worker and the relay hold their own connections: they outlive the server's restart, as in production.
  workerConnection = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
  worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities: realActivities(w.t.db, w.t.config),
  });
  running = worker.run();
  relayConnection = Connection.lazy({ address: `127.0.0.1:${port}` });
  const relayClient = new Client({ connection: relayConnection, dataConverter: testDataConverter });
  relay = createInboxRelay({
    db: w.t.db.sql,
    runs: createPaymentRuns(relayClient, config),
    logger: createLogger('silent'),
    batchSize: 50,
    pollIntervalMs: 1_000,
    maxBackoffMs: 1_000,
  });
  relay.start();
  activations = createActivationRuns(env.client, config);
});

afterAll(async () => {
  await relay?.stop();
  worker?.shutdown();
  await running?.catch(() => undefined);
  await workerConnection?.close().catch(() => undefined);
  await relayConnection?.close().catch(() => undefined);
  await env?.teardown();
  await w?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const client = () => env!.client;

async function settlementRuns(p: PaymentFixture): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of client().workflow.list({ query: `WorkflowId = '${paymentWorkflowId(p.paymentId)}'` })) runs.push(run.runId);
  return runs;
}

async function orderPaidSignals(p: PaymentFixture): Promise<number> {
  const history = await client().workflow.getHandle(activationWorkflowId(p.activationId)).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'orderPaid').length;
}

it('acknowledges every callback while Temporal is stopped, then settles each payment exactly once, in arrival order, once it is back', async () => {
  const [p, q] = [await insertPayment(w.t), await insertPayment(w.t)];
  for (const x of [p, q]) {
    await activations.start({ activationId: x.activationId, userId: x.userId, orderId: x.orderId, simType: 'physical' });
  }
  // p's settlement run exists before the outage (payment create starts it); q's will be started by its first event.
  const payments = createPaymentRuns(client(), { ...w.t.config, TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false });
  await payments.startSettlement(p.paymentId);
  let pRun = '';
  await eventually(async () => ([pRun] = await settlementRuns(p)) && expect(pRun).toBeTruthy(), 5_000);

  await env!.teardown();
  env = undefined;

  const pFailed = intentEvent('payment_intent.payment_failed', p, { last_payment_error: { message: 'Card declined' } });
  const pSucceeded = intentEvent('payment_intent.succeeded', p);
  const qSucceeded = intentEvent('payment_intent.succeeded', q);
  for (const event of [pFailed, qSucceeded, pSucceeded, pSucceeded, qSucceeded]) {
    const res = await sendCardEvent(w, event);
    expect([res.status, res.body]).toEqual([200, { received: true }]);
  }
  expect((await inboxRows(w.t, p.paymentId)).map((r) => r.event_id)).toEqual([pFailed.id, pSucceeded.id]);
  expect((await inboxRows(w.t, q.paymentId)).map((r) => r.event_id)).toEqual([qSucceeded.id]);
  // The relay tried, failed and keeps the rows (with the error) for later.
  await eventually(async () => {
    const heads = [(await inboxRows(w.t, p.paymentId))[0], (await inboxRows(w.t, q.paymentId))[0]];
    for (const head of heads) expect(head).toMatchObject({ status: 'pending', attempts: expect.any(Number) as number });
    expect(heads.every((h) => h.attempts >= 1 && h.last_error)).toBe(true);
  }, 20_000);
  expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');

  env = await startTemporal();

  await eventually(async () => {
    for (const x of [p, q])
      expect((await inboxRows(w.t, x.paymentId)).map((r) => r.status)).toEqual(expect.not.arrayContaining(['pending']));
    for (const x of [p, q])
      expect((await client().workflow.getHandle(activationWorkflowId(x.activationId)).query(stateQuery)).paid).toBe(true);
  }, 60_000);
  for (const x of [p, q]) expect(await paymentRow(w.t, x.paymentId)).toMatchObject({ status: 'completed', failure_reason: null });

  // p: the run from before the outage heard both events, in arrival order (failed, then succeeded: completed).
  await eventually(async () => expect(await settlementRuns(p)).toEqual([pRun]), 5_000);
  expect((await client().workflow.getHandle(paymentWorkflowId(p.paymentId)).query(settlementStateQuery)).processedEventIds).toEqual([
    pFailed.id,
    pSucceeded.id,
  ]);
  // q: one run, started by its event.
  await eventually(async () => expect(await settlementRuns(q)).toHaveLength(1), 5_000);
  for (const x of [p, q]) expect(await orderPaidSignals(x)).toBe(1);
  expect(
    (
      await w.t.db.query<{ n: string }>(
        `select count(*) as n from webhook_events where type = 'payment.settled' and payment_id = any($1)`,
        [[p.paymentId, q.paymentId]],
      )
    )[0].n,
  ).toBe('2');
});
