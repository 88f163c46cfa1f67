/**
 * Issue 32, item 1, on a real database: "signals take the same road [as starts], delivered once, in
 * order per run, within a second of Temporal coming back". Pending signals are written as the routes and
 * services write them; the relay sends them through a fake Temporal (the real one:
 * test/e2e/temporal-outage.test.ts).
 */
import { createLogger } from '../../src/http/logger';
import { CANCEL_RUN, pendingSignal, type PendingSignal, type SignalOutcome } from '../../src/workflow-signals/kinds';
import { createWorkflowSignals } from '../../src/workflow-signals/outbox';
import { createSignalRelay, type SignalRelay } from '../../src/workflow-signals/relay';
import { enqueueSignal } from '../../src/workflow-signals/repository';
import { enqueueStart } from '../../src/workflow-starts/repository';
import { pendingStart } from '../../src/workflow-starts/kinds';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { eventually } from '../helpers/app';
import { match } from '../helpers/match';
import { randomUUID } from 'node:crypto';

jest.setTimeout(30_000);

let db: TestDatabase;
/** What Temporal took, in order; refused while `away`; `closed` runs answer "not found". */
const temporal = { away: false, sent: [] as PendingSignal[], closed: new Set<string>() };
const send = (signal: PendingSignal): Promise<SignalOutcome> => {
  if (temporal.away) return Promise.reject(new Error('Temporal unavailable'));
  if (temporal.closed.has(signal.workflowId)) return Promise.resolve('closed');
  temporal.sent.push(signal);
  return Promise.resolve('signalled');
};
const relays: SignalRelay[] = [];
const logger = createLogger('silent');

function relay(): SignalRelay {
  const r = createSignalRelay({ db: db.sql, send, logger, batchSize: 50, pollIntervalMs: 60_000, maxBackoffMs: 1_000, baseBackoffMs: 100 });
  relays.push(r);
  return r;
}

const rows = () =>
  db.query<{ workflow_id: string; signal: string; delivered_at: Date | null; outcome: string | null }>(
    'select workflow_id, signal, delivered_at, outcome from workflow_signals order by id',
  );
const enqueue = (signal: PendingSignal) => db.sql.transaction((tx) => enqueueSignal(tx, signal));

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());
beforeEach(() => {
  temporal.away = false;
  temporal.sent = [];
  temporal.closed.clear();
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await db.query('delete from workflow_signals');
  await db.query('delete from workflow_starts');
});

it('the API sends its signal at once and marks it; while Temporal refuses, the row is left due now for the relay', async () => {
  const launcher = createWorkflowSignals({ db: db.sql, send, logger });
  const activationId = randomUUID();
  await launcher.launch([await enqueue(pendingSignal.activationPaid(activationId, 'pay-1'))]);
  expect(temporal.sent).toEqual([
    { workflowId: `activation:${activationId}`, signal: 'orderPaid', args: { paymentId: 'pay-1' }, id: match.any(String) },
  ]);
  expect(await rows()).toEqual([
    { workflow_id: `activation:${activationId}`, signal: 'orderPaid', delivered_at: match.any(Date), outcome: 'signalled' },
  ]);

  temporal.away = true;
  const other = randomUUID();
  await launcher.launch([await enqueue(pendingSignal.identityStarted(other, { transId: 'tx-1', attempt: 1 }))]);
  const [left] = await db.query<{ attempts: number; last_error: string; due: boolean }>(
    `select attempts, last_error, next_attempt_at <= now() as due from workflow_signals where delivered_at is null`,
  );
  expect(left).toEqual({ attempts: 1, last_error: 'Error: Temporal unavailable', due: true });
});

it('delivers in order per run once Temporal answers, one signal of a run per claim', async () => {
  temporal.away = true;
  const a = randomUUID();
  const b = randomUUID();
  const launcher = createWorkflowSignals({ db: db.sql, send, logger });
  for (const signal of [
    pendingSignal.identityStarted(a, { transId: 'tx-1', attempt: 1 }),
    pendingSignal.activationPaid(b, 'pay-b'),
    pendingSignal.activationPaid(a, 'pay-a'),
    pendingSignal.identityStarted(a, { transId: 'tx-2', attempt: 2 }),
  ]) {
    await launcher.launch([await enqueue(signal)]);
  }
  relay().start();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(temporal.sent).toEqual([]);

  temporal.away = false;
  await eventually(() => expect(temporal.sent).toHaveLength(4), 5_000);
  const ofA = temporal.sent.filter((s) => s.workflowId === `activation:${a}`).map((s) => [s.signal, s.args]);
  expect(ofA).toEqual([
    ['identityStarted', { transId: 'tx-1', attempt: 1 }],
    ['orderPaid', { paymentId: 'pay-a' }],
    ['identityStarted', { transId: 'tx-2', attempt: 2 }],
  ]);
  expect((await rows()).every((r) => r.outcome === 'signalled')).toBe(true);
});

it('holds a signal behind an earlier one of its run: the API does not overtake it', async () => {
  temporal.away = true;
  const a = randomUUID();
  const launcher = createWorkflowSignals({ db: db.sql, send, logger });
  await launcher.launch([await enqueue(pendingSignal.identityStarted(a, { transId: 'tx-1', attempt: 1 }))]);
  temporal.away = false;
  await launcher.launch([await enqueue(pendingSignal.activationPaid(a, 'pay-a'))]);
  expect(temporal.sent).toEqual([]);
  expect(await relay().drain()).toMatchObject({ signalled: 2 });
  expect(temporal.sent.map((s) => s.signal)).toEqual(['identityStarted', 'orderPaid']);
});

it('waits for the run’s pending start, and is sent once it is made; a closed run’s signal is marked closed', async () => {
  const a = randomUUID();
  await db.sql.transaction(async (tx) => {
    await enqueueStart(tx, pendingStart.activation({ activationId: a, userId: randomUUID(), orderId: randomUUID(), simType: 'physical' }));
    await enqueueSignal(tx, pendingSignal.activationPaid(a, 'pay-a'));
  });
  await db.query(`update workflow_signals set next_attempt_at = now()`);
  const r = relay();
  expect(await r.drain()).toMatchObject({ claimed: 0 });
  r.start();
  // The start is made (by the API or the start relay): its trigger wakes the signal relay.
  await db.query(`update workflow_starts set started_at = now()`);
  await eventually(() => expect(temporal.sent.map((s) => s.workflowId)).toEqual([`activation:${a}`]), 5_000);

  const gone = randomUUID();
  temporal.closed.add(`activation:${gone}`);
  await enqueue(pendingSignal.activationPaid(gone, 'pay-late'));
  await eventually(async () => expect((await rows()).at(-1)).toMatchObject({ outcome: 'closed', delivered_at: match.any(Date) }), 10_000);
});

it('a requeue carries the run to start should its run have ended; a cancellation is a row of its own: both reach the sender as written', async () => {
  temporal.away = true;
  const launcher = createWorkflowSignals({ db: db.sql, send, logger });
  const orderId = randomUUID();
  const activationId = randomUUID();
  const start = {
    workflowType: 'storeOrderWorkflow',
    taskQueue: 'orders',
    input: { orderId, requeue: true },
    searchAttributes: { OrderId: orderId },
  };
  const requeue = pendingSignal.storeOrderRequeue(orderId, start);
  const cancel = pendingSignal.cancelRun(`activation:${activationId}`);
  await launcher.launch([await enqueue(requeue), await enqueue(cancel)]);
  expect(temporal.sent).toEqual([]);

  temporal.away = false;
  expect(await relay().drain()).toMatchObject({ signalled: 2 });
  expect(temporal.sent).toEqual([
    { workflowId: `store-order:${orderId}`, signal: 'requeue', args: {}, start, id: match.any(String) },
    { workflowId: `activation:${activationId}`, signal: CANCEL_RUN, args: {}, id: match.any(String) },
  ]);
});
