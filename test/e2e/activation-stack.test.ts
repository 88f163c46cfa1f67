/**
 * End to end on the running stack: the compiled API and worker as real
 * processes, the Temporal dev server, PostgreSQL. Everything is read over HTTP
 * (plus the rows and the workflow history where "exactly once" is the point).
 *
 * 1. `npm run demo`'s walk (runDemo) from register to `activated`, paid through
 *    the mock provider, and the run findable by its business keys.
 * 2. The fault test: the worker is killed between payment and handoff, and again
 *    in the middle of the operator handoff; after each restart the activation
 *    goes on, and it ends `activated` exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { z } from 'zod';
import type { ActivationHistoryResponse, ActivationStatusResponse } from '../../src/activations/read-routes';
import type { CreateActivationResponse, IdentityStatusResponse } from '../../src/activations/schemas';
import type { SignInResponse } from '../../src/auth/schemas';
import { demoIccid, runDemo } from '../../src/cli/demo';
import type { PaymentResult } from '../../src/payments/schemas';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { CONSENTS, eventually } from '../helpers/app';
import { DEMO } from '../helpers/activations';
import type { TestDatabase } from '../helpers/db';
import { match } from '../helpers/match';
import { compiledProcesses, lastCode, mobileCall, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApi, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
/** Long enough to kill the worker while the operator call is in flight. */
const OPERATOR_DELAY_MS = 3_000;
let stack: StackFixture;
let env: TestWorkflowEnvironment;
let db: TestDatabase;
let worker: ChildProcess;
let baseUrl: string;
let messagesFile: string;

const startWorker = () => (worker = processes.start('worker/main.js', stack.common, 'worker'));

beforeAll(async () => {
  stack = await openStackFixture('e2e', { MOCK_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) });
  ({ env, db, messagesFile } = stack);
  startWorker();
  baseUrl = await startApi(stack, processes);
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

/** A call as a mobile client makes it; `T` is the route's response type (nothing checks it at run time). */
const api = <T = unknown>(method: string, route: string, body?: unknown, token?: string) =>
  mobileCall<T>(baseUrl, method, route, body, token);

async function listRuns(query: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of env.client.workflow.list({ query })) runs.push(run.workflowId);
  return runs;
}

it('walks the demo from register to an activated SIM, paid through the mock provider', async () => {
  const lines: string[] = [];
  const result = await runDemo({ baseUrl, messagesFile, log: (line) => lines.push(line) });

  expect(result.status).toBe('activated');
  expect(lines.join('\n')).toMatch(/Done in [\d.]+s, \d+ requests: activation .* is activated/);
  const [payment] = await db.query<{ status: string; order_status: string }>(
    'select p.status, o.status as order_status from payments p join orders o on o.id = p.order_id where p.id = $1',
    [result.paymentId],
  );
  expect(payment).toEqual({ status: 'completed', order_status: 'paid' });
  expect(result.receiptNumber).toEqual(match.any(String));

  // Operators find the run in the Temporal UI by its business keys, the payment included.
  await eventually(async () => {
    expect(
      await listRuns(`ActivationId = "${result.activationId}" AND OrderId = "${result.orderId}" AND ActivationStatus = "activated"`),
    ).toEqual([activationWorkflowId(result.activationId)]);
    expect(await listRuns(`PaymentId = "${result.paymentId}"`)).toEqual([activationWorkflowId(result.activationId)]);
  }, 15_000);
});

it('ends activated exactly once when the worker dies between payment and handoff, and again during the handoff', async () => {
  const phone = '+966512345678';
  expect((await api('POST', '/auth/register', { phone, name: 'Fault Test', consents: CONSENTS })).status).toBe(201);
  const token = (await api<z.infer<typeof SignInResponse>>('POST', '/auth/verify-otp', { phone, otp: lastCode(messagesFile, phone) })).body
    .session.token as string;
  const created = await api<z.infer<typeof CreateActivationResponse>>(
    'POST',
    '/activations',
    { iccid: demoIccid(), packageId: DEMO.packages.starter },
    token,
  );
  expect(created.status).toBe(201);
  const { activationId, orderId } = created.body;
  const handle = env.client.workflow.getHandle(activationWorkflowId(activationId));
  const status = async () =>
    (await api<z.infer<typeof ActivationStatusResponse>>('GET', `/activations/${activationId}/status`, undefined, token)).body.status;

  expect(
    (await api('POST', `/activations/${activationId}/verify-identity`, { identityType: 'citizen', idNumber: '1098765430' }, token)).status,
  ).toBe(200);
  const pendingActivities = async () => ((await handle.describe()).raw.pendingActivities ?? []).map((a) => [a.activityType?.name, a.state]);
  await eventually(async () => {
    expect(
      (await api<z.infer<typeof IdentityStatusResponse>>('GET', `/activations/${activationId}/verify-identity`, undefined, token)).body
        .status,
    ).toBe('completed');
    expect(await pendingActivities()).toEqual([]); // the identity record's completion reached the server
  }, 30_000);

  // The worker dies; the payment is taken while no worker runs.
  await stopProcess(worker, 'SIGKILL');
  const paid = await api<z.infer<typeof PaymentResult>>(
    'POST',
    '/payments/create-intent',
    { orderId, method: 'local_debit', idempotencyKey: randomUUID() },
    token,
  );
  expect(paid).toMatchObject({ status: 201, body: { status: 'completed' } });
  expect(await status()).toBe('pending');

  // A new worker picks the run up and starts the handoff; it dies while the operator call is in flight.
  startWorker();
  await eventually(async () => {
    expect(await pendingActivities()).toEqual([['activateSim', temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED]]);
  }, 60_000);
  expect(await status()).toBe('in_progress');
  await stopProcess(worker, 'SIGKILL');

  // Another worker: the lost attempt times out on its heartbeat and the handoff is retried.
  startWorker();
  expect(await handle.result()).toBe('activated');
  expect(await status()).toBe('activated');

  // Exactly once: one run, one paid signal, one handoff that completed (on a later attempt), one activated row.
  expect(await listRuns(`WorkflowId = "${activationWorkflowId(activationId)}"`)).toEqual([activationWorkflowId(activationId)]);
  const events = (await handle.fetchHistory()).events ?? [];
  // The history as stored (fetchHistory does not decode): the id number and the phone are encrypted away.
  const stored = Buffer.from(temporal.api.history.v1.History.encode({ events }).finish());
  expect([stored.includes('1098765430'), stored.includes(phone.slice(1))]).toEqual([false, false]);
  const { EventType } = temporal.api.enums.v1;
  const signals = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
  // "Paid" once; the verification the API started came by its own signal.
  const names = signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName);
  expect(names.filter((name) => name === 'orderPaid')).toEqual(['orderPaid']);
  expect(names).toContain('identityStarted');
  const handoffs = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'activateSim');
  expect(handoffs).toHaveLength(1);
  const completed = events.filter(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
      String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(handoffs[0].eventId),
  );
  expect(completed).toHaveLength(1);
  const startedAttempt = events.find((e) => String(e.eventId) === String(completed[0].activityTaskCompletedEventAttributes?.startedEventId))
    ?.activityTaskStartedEventAttributes?.attempt;
  expect(startedAttempt).toBeGreaterThanOrEqual(2);
  const rows = await db.query<{ status: string; activated_at: string | null }>(
    'select status, activated_at from activations where order_id = $1',
    [orderId],
  );
  expect(rows).toEqual([{ status: 'activated', activated_at: match.any(Date) }]);
  const history = await api<z.infer<typeof ActivationHistoryResponse>>('GET', '/activations/history', undefined, token);
  expect(history.body.items.map((i) => i.status)).toEqual(['activated']);
});
