/**
 * An account's deletion ends the runs of what it cancelled (esim-store spec "Account deletion and
 * compliance": pending activations are cancelled, their runs end `cancelled`; open store orders are
 * cancelled), through pending signals sent on the real Temporal client on the time-skipping server (by
 * the API, or by the signal relay when the API's attempt failed), with the real activities on the same
 * database as the API.
 */
import type { ActivationRuns } from '../../src/activations/runs';
import type { SignalSender } from '../../src/workflow-signals/kinds';
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { CancelledFailure, WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { createStoreOrderRuns } from '../../src/store/runs-temporal';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { bearer, eventually, signUp, type TestApp } from '../helpers/app';
import { DEMO, iccid, seedCatalog } from '../helpers/activations';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp, productId } from '../helpers/store';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(60_000);

const taskQueue = uniqueTaskQueue('account-deletion');
let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: RunningTestWorker;
/** While `away`, the API's own attempts (its starts and signals) fail; the worker's signal relay still reaches Temporal. */
const api = { away: false };
const unavailable = () => Promise.reject(new Error('Temporal unavailable'));

beforeAll(async () => {
  const [e, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  env = e;
  const config = { ...loadConfig({ NODE_ENV: 'test' }), TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false };
  const activations = createActivationRuns(env.client, config);
  const activationRuns: ActivationRuns = { start: (args) => (api.away ? unavailable() : activations.start(args)) };
  const sender = temporalSignalSender(env.client);
  const signalSender: SignalSender = (signal) => (api.away ? unavailable() : sender(signal));
  t = await createStoreApp({
    deps: { activationRuns, storeOrderRuns: createStoreOrderRuns(env.client, config), signalSender },
  });
  await seedCatalog(t.db);
  worker = await runTestWorker(env, { taskQueue, workflowBundle: bundle, activities: realActivities(t.db, t.config), signals: t.db.sql });
});
beforeEach(() => {
  api.away = false;
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await env?.teardown();
});

async function activate(token: string): Promise<string> {
  const created = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
  expect(created.status).toBe(201);
  return (created.body as { activationId: string }).activationId;
}

async function storeOrder(token: string): Promise<string> {
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  const ordered = await request(t.app)
    .post('/store/orders')
    .set(bearer(token))
    .send({ productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: (ack.body as { data: { id: string } }).data.id });
  return (ordered.body as { data: { id: string } }).data.id;
}

/** The run ends Cancelled (a cancellation request, not its own deadline). */
async function expectCancelled(run: WorkflowHandle): Promise<void> {
  const failure: unknown = await run.result().then(
    () => null,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect((await run.describe()).status.name).toBe('CANCELLED');
}

const cancellations = (runs: string[]) =>
  t.db.query<{ workflow_id: string; outcome: string | null; attempts: number }>(
    `select workflow_id, outcome, attempts from workflow_signals where workflow_id = any($1::text[]) and signal = '@cancel' order by workflow_id`,
    [runs],
  );

it('cancels the pending activation’s run (it ends cancelled, the row keeps ACCOUNT_DELETED) and the unpaid store order’s run', async () => {
  const person = await signUp(t);
  const activationId = await activate(person.token);
  const storeOrderId = await storeOrder(person.token);
  const activationRun = env.client.workflow.getHandle(activationWorkflowId(activationId));
  const storeRun = env.client.workflow.getHandle(storeOrderWorkflowId(storeOrderId));
  // Both runs were started by the API and are waiting (identity and payment; payment).
  expect((await activationRun.describe()).status.name).toBe('RUNNING');
  expect((await storeRun.describe()).status.name).toBe('RUNNING');

  expect((await request(t.app).post('/auth/me/deletion-request').set(bearer(person.token))).status).toBe(202);

  for (const run of [activationRun, storeRun]) await expectCancelled(run);
  const [activation] = await t.db.query<{ status: string; failed_reason: string }>(
    'select status, failed_reason from activations where id = $1',
    [activationId],
  );
  expect(activation).toEqual({ status: 'cancelled', failed_reason: 'ACCOUNT_DELETED' });
  const [store] = await t.db.query<{ status: string }>('select status from store_orders where id = $1', [storeOrderId]);
  expect(store.status).toBe('expired');
  const runs = [activationRun.workflowId, storeRun.workflowId];
  expect(await t.db.query('select 1 from workflow_starts where workflow_id = any($1::text[])', [runs])).toEqual([]);
  // Taken by the API's own attempt, after the commit.
  expect(await cancellations(runs)).toEqual(
    runs.sort().map((workflowId) => ({ workflow_id: workflowId, outcome: 'signalled', attempts: 1 })),
  );
});

it('with Temporal away at the request: the same answer; the signal relay cancels the runs, and finds none for a run whose start was still pending', async () => {
  const person = await signUp(t);
  const activationRun = env.client.workflow.getHandle(activationWorkflowId(await activate(person.token)));
  const storeRun = env.client.workflow.getHandle(storeOrderWorkflowId(await storeOrder(person.token)));
  api.away = true;
  // Its start stays pending (no start relay here): the deletion drops it, so this run never exists.
  const unstarted = activationWorkflowId(await activate(person.token));

  expect((await request(t.app).post('/auth/me/deletion-request').set(bearer(person.token))).status).toBe(202);

  const runs = [activationRun.workflowId, storeRun.workflowId, unstarted].sort();
  // The API's attempt failed (one attempt counted), the relay's was taken; the unstarted run was not found.
  // Waited for before the runs' results: awaiting a result lets the time-skipping server jump ahead, and a
  // run's timer (the activation's paid check) then races the cancel with an activity of its own, which the
  // Java test server answers ACTIVITY_UNKNOWN and never settles (the run hangs; a real server does not).
  await eventually(
    async () =>
      expect(await cancellations(runs)).toEqual(
        runs.map((workflowId) => ({ workflow_id: workflowId, outcome: workflowId === unstarted ? 'closed' : 'signalled', attempts: 2 })),
      ),
    10_000,
  );
  for (const run of [activationRun, storeRun]) await expectCancelled(run);
  await expect(env.client.workflow.getHandle(unstarted).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
});
