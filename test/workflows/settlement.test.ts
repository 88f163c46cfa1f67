// The settlement workflow with its real activities on a real database, the activation workflow
// beside it, and the real webhook route and relay in front (signed with the processor's own
// library): callbacks go route → inbox → relay (signal-with-start) → settlement → activation, as
// in production. Tests drain the relay after each callback, so the order of events is theirs.
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { createActivationActivities } from '../../activities/activations';
import { createPaymentActivities } from '../../activities/payments';
import { createMockIdentityProvider } from '../../src/identity/provider';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { mockOperators } from '../../src/operators/mock';
import { OperatorRegistry } from '../../src/operators/plugin';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import type { ActivationRuns } from '../../src/activations/runs';
import { createLogger } from '../../src/http/logger';
import { createPaymentRuns } from '../../src/payments/runs-temporal';
import type { PaymentRuns } from '../../src/payments/runs';
import { createInboxRelay, type InboxRelay } from '../../src/webhooks/relay';
import { storeOrderPayments } from '../../src/store';
import { activationWorkflowId, stateQuery } from '../../workflows/contracts/activation-contract';
import { paymentWorkflowId, settlementStateQuery, type SettlementOutcome } from '../../workflows/contracts/settlement-contract';
import { errorCode, eventually } from '../helpers/app';
import { verifyForRun } from '../helpers/activations';
import { match } from '../helpers/match';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';
import {
  createWebhookTestApp,
  fakeProcessor,
  insertPayment,
  intentEvent,
  paymentRow,
  sendCardEvent,
  webhookEvents,
  withWebhookEventsRefused,
  type PaymentFixture,
  type WebhookTestApp,
} from '../helpers/webhooks';

jest.setTimeout(90_000);

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const SILENCE_SECONDS = 900;
const MAX_LOOKUPS = 3;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let w: WebhookTestApp;
let worker: Worker;
let running: Promise<void>;
let payments: PaymentRuns;
let activations: ActivationRuns;
let relay: InboxRelay;
const processor = fakeProcessor();
/**
 * Failure injection for settlePayment, one fault per attempt: `before commit` fails it before its
 * transaction runs (the database refused), `after commit` once its transaction committed (the worker
 * lost the answer), so the retry finds the payment settled already.
 */
const settleFaults: Array<'before commit' | 'after commit'> = [];

// The database and the webhook route live for the file; the relay reaches the current test's
// Temporal through the real client code (createPaymentRuns).
beforeAll(async () => {
  bundle = await bundleWorkflows(require.resolve('../fixtures/payment-workflows'));
  w = await createWebhookTestApp();
});
afterAll(() => w?.close());

/**
 * A fresh time-skipping server per test. Skipping is global to a server: runs a test leaves
 * waiting would have their long timers fired by later tests' skips, and the 24 h activation
 * cancel firing in the same workflow task as another timer's cancellation trips a known
 * test-server bug (sdk-java#2606, #3088) that wedges skipping for everyone. The Java server
 * starts in about a second with its CDS archive.
 */
beforeEach(async () => {
  settleFaults.length = 0;
  env = await createTimeSkippingEnv();
  const taskQueue = uniqueTaskQueue('settlement');
  const config = {
    ...w.t.config,
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_SEARCH_ATTRIBUTES: false,
    PAYMENT_SETTLEMENT_SILENCE_SECONDS: SILENCE_SECONDS,
    PAYMENT_SETTLEMENT_MAX_LOOKUPS: MAX_LOOKUPS,
    // The activation's own "is the order paid?" check stays out of the way: these tests prove the signal.
    ACTIVATION_PAID_CHECK_SECONDS: 7 * 3600,
  };
  payments = createPaymentRuns(env.client, config);
  activations = createActivationRuns(env.client, config);
  relay = createInboxRelay({
    db: w.t.db.sql,
    runs: payments,
    logger: createLogger('warn'),
    batchSize: 50,
    pollIntervalMs: 60_000,
    maxBackoffMs: 1_000,
  });
  const paymentActivities = createPaymentActivities({ db: w.t.db.sql, paymentProvider: processor.provider, storeOrderPayments });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities: {
      ...createActivationActivities({
        db: w.t.db.sql,
        operators: new OperatorRegistry(mockOperators()),
        identity: createMockIdentityProvider({ delayMs: 0 }),
        cipher: createPersonalDataCipher(w.t.config.DATA_ENCRYPTION_KEY, w.t.config.DATA_HASH_KEY),
        messages: createMemoryMessageSender(),
      }),
      ...paymentActivities,
      async settlePayment(input: Parameters<typeof paymentActivities.settlePayment>[0]) {
        const fault = settleFaults.shift();
        if (fault === 'before commit') throw new Error('connection reset');
        const settled = await paymentActivities.settlePayment(input);
        if (fault === 'after commit') throw new Error('the answer was lost');
        return settled;
      },
    },
  });
  running = worker.run();
});
afterEach(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

/** A callback as the processor sends it, then the relay's hand-over of whatever it left in the inbox. */
async function send(event: object) {
  const res = await sendCardEvent(w, event);
  const relayed = await relay.drain();
  expect(relayed.failed).toBe(0);
  return res;
}

const settlement = (p: PaymentFixture): WorkflowHandle => env.client.workflow.getHandle(paymentWorkflowId(p.paymentId));
const activation = (p: PaymentFixture): WorkflowHandle => env.client.workflow.getHandle(activationWorkflowId(p.activationId));
const outcome = (p: PaymentFixture) => settlement(p).result() as Promise<SettlementOutcome>;

/**
 * A payment waiting on the processor, with its running activation, each for a new person: a
 * resident may hold 2 SIMs, checked again when a verification completes.
 */
async function pendingPayment(): Promise<PaymentFixture> {
  const p = await insertPayment(w.t);
  await activations.start({ activationId: p.activationId, userId: p.userId, orderId: p.orderId, simType: 'physical' });
  return p;
}

let idSeq = 0;
/** Each person's own id number (SIM limits count per identity), ending in 0: the mock completes it at the first poll. */
const newIdNumber = () => `1${String(process.pid % 10000).padStart(4, '0')}${String(++idSeq).padStart(4, '0')}0`;

/** Identity verified and recorded (the mock provider completes ids ending in 0 at the first poll). */
async function completeIdentity(p: PaymentFixture): Promise<void> {
  await verifyForRun(w.t.db, env.client, p.activationId, { identityType: 'resident', idNumber: newIdNumber() });
  await env.sleep(10_000);
  expect((await activationRow(p)).identity_status).toBe('completed');
}

async function activationRow(p: PaymentFixture) {
  return (
    await w.t.db.query<Record<string, unknown>>('select status, identity_status from activations where id = $1', [p.activationId])
  )[0];
}
async function orderStatus(p: PaymentFixture) {
  return (await w.t.db.query<{ status: string }>('select status from orders where id = $1', [p.orderId]))[0].status;
}

/** How many "order paid" signals the activation received. */
async function orderPaidSignals(p: PaymentFixture): Promise<number> {
  const history = await activation(p).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'orderPaid').length;
}

/** A run's activities from its history: those that were tasks on the task queue, and those run inside a workflow task (local). */
async function activitiesOf(handle: WorkflowHandle, after?: (e: HistoryEvent) => boolean) {
  let events = (await handle.fetchHistory()).events ?? [];
  if (after) events = events.slice(events.findIndex(after));
  const markers = events.flatMap((e) => e.markerRecordedEventAttributes ?? []).filter((m) => m.markerName === 'core_local_activity');
  return {
    tasks: events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
    // The SDK core's marker data is plain JSON (never encrypted): { activity_type, attempt, … }.
    local: markers.map(
      (m) => (JSON.parse(Buffer.from(m.details!.data.payloads![0].data!).toString()) as { activity_type: string }).activity_type,
    ),
  };
}

async function expectCompleted(p: PaymentFixture) {
  const row = await paymentRow(w.t, p.paymentId);
  expect(row).toMatchObject({ status: 'completed', failure_reason: null });
  expect(row.receipt_number).toMatch(/^RCP-\d{8}-[0-9A-F]{8}$/);
  expect(row.paid_at).not.toBeNull();
  expect(await orderStatus(p)).toBe('paid');
  return row;
}

async function expectMismatchFailed(p: PaymentFixture) {
  expect(await paymentRow(w.t, p.paymentId)).toMatchObject({
    status: 'failed',
    failure_reason: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH',
    receipt_number: null,
  });
  expect(await orderStatus(p)).toBe('pending_payment');
  expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => e.outcome)).toEqual(['mismatch']);
  expect(await orderPaidSignals(p)).toBe(0);
  expect((await activation(p).query(stateQuery)).paid).toBe(false);
}

describe('settlement from processor callbacks', () => {
  it('a succeeded callback settles the payment and activates (identity already done)', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    await payments.startSettlement(p.paymentId); // as payment create does

    const res = await send(intentEvent('payment_intent.succeeded', p));
    expect([res.status, res.body]).toEqual([200, { received: true }]);

    expect(await outcome(p)).toBe('completed');
    expect(await activation(p).result()).toBe('activated');
    await expectCompleted(p);
    expect((await activationRow(p)).status).toBe('activated');
    expect(await orderPaidSignals(p)).toBe(1);
    expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => [e.event_id, e.outcome])).toEqual([
      [`settlement:${p.paymentId}`, 'settled'],
    ]);
  });

  it('payment first, then identity: the callback alone starts settlement; the activation waits for identity', async () => {
    const p = await pendingPayment();
    const res = await send(intentEvent('payment_intent.succeeded', p));
    expect(res.status).toBe(200);

    expect(await outcome(p)).toBe('completed');
    await expectCompleted(p);
    expect(await activation(p).query(stateQuery)).toEqual({ status: 'pending', identityStatus: 'waiting', paid: true });
    expect((await activationRow(p)).status).toBe('pending');

    await verifyForRun(w.t.db, env.client, p.activationId, { identityType: 'resident', idNumber: newIdNumber() });
    expect(await activation(p).result()).toBe('activated');
    expect(await orderPaidSignals(p)).toBe(1);
  });

  it('payment_failed fails the payment with the last error message; canceled with payment_intent.canceled', async () => {
    const p = await pendingPayment();
    await send(intentEvent('payment_intent.payment_failed', p, { last_payment_error: { message: 'Your card has insufficient funds.' } }));
    expect(await outcome(p)).toBe('failed');
    expect(await paymentRow(w.t, p.paymentId)).toMatchObject({ status: 'failed', failure_reason: 'Your card has insufficient funds.' });

    const q = await pendingPayment();
    await send(intentEvent('payment_intent.canceled', q));
    expect(await outcome(q)).toBe('failed');
    expect(await paymentRow(w.t, q.paymentId)).toMatchObject({ status: 'failed', failure_reason: 'payment_intent.canceled' });
    expect(await orderPaidSignals(q)).toBe(0);
  });
});

// One case per rule: through the webhook (recorded by the route) and through the processor lookup (recorded by the activity).
const RULES: Array<[string, (p: PaymentFixture) => Record<string, unknown>, (p: PaymentFixture) => Record<string, unknown>]> = [
  ['1 status', () => ({ status: 'requires_capture' }), () => ({ status: 'requires_capture' })],
  ['2 currency', () => ({ currency: 'usd' }), () => ({ currency: 'USD' })],
  ['3 amount', () => ({ amount: 4800, amount_received: 4800 }), () => ({ amountMinor: 4800n, amountReceivedMinor: 4800n })],
  [
    '4 metadata',
    (p) => ({ metadata: { payment_id: p.paymentId, order_id: p.orderId, user_id: '00000000-0000-4000-8000-00000000beef' } }),
    (p) => ({ metadata: { payment_id: p.paymentId, order_id: p.orderId } }),
  ],
];

describe('the money path: a succeeded callback to activated', () => {
  it('settles and hands off inside workflow tasks: only the operator call waits for an activity task', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    await send(intentEvent('payment_intent.succeeded', p));
    expect(await outcome(p)).toBe('completed');
    expect(await activation(p).result()).toBe('activated');
    await expectCompleted(p);
    expect(await activitiesOf(settlement(p))).toEqual({ tasks: [], local: ['settlePayment'] });
    const paid = (e: HistoryEvent) => e.workflowExecutionSignaledEventAttributes?.signalName === 'orderPaid';
    expect(await activitiesOf(activation(p), paid)).toEqual({ tasks: ['activateSim'], local: ['startHandoff'] });
    expect(await orderPaidSignals(p)).toBe(1);
  });

  it('a settlement that fails is retried in its run; one whose answer was lost after its commit settles once and signals once', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    settleFaults.push('before commit', 'after commit');
    await send(intentEvent('payment_intent.succeeded', p));
    expect(await outcome(p)).toBe('completed');
    expect(settleFaults).toEqual([]);
    expect(await activitiesOf(settlement(p))).toEqual({ tasks: [], local: ['settlePayment'] });
    expect(await activation(p).result()).toBe('activated');
    await expectCompleted(p);
    expect(await orderPaidSignals(p)).toBe(1);
    expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => [e.event_id, e.outcome])).toEqual([
      [`settlement:${p.paymentId}`, 'settled'],
    ]);
  });
});

describe('runs recorded before the money path settled and handed off in workflow tasks', () => {
  it.each(['settlement-history-before-local-settle', 'activation-history-before-local-handoff'])(
    '%s replays with the new code without a nondeterminism error (patched keeps their path)',
    async (name) => {
      const file = path.join(__dirname, 'fixtures', `${name}.json`);
      const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
      await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history)).resolves.toBeUndefined();
    },
  );
});

describe('mismatches: nothing completes, nothing activates', () => {
  it.each(RULES)('rule %s, from the webhook: recorded, payment failed, the workflow ends failed', async (_rule, eventOverride) => {
    const p = await pendingPayment();
    await completeIdentity(p);
    await payments.startSettlement(p.paymentId);
    const res = await send(intentEvent('payment_intent.succeeded', p, eventOverride(p)));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    // Nothing was signalled; after the silence the workflow sees the failed payment and ends.
    expect(await outcome(p)).toBe('failed');
    await expectMismatchFailed(p);
    expect(processor.calls).not.toContain(p.intentId);
  });

  // Rule 1 cannot fail on a lookup: an intent the processor does not call `succeeded` is still open (see "stops asking").
  it.each(RULES.slice(1))(
    'rule %s, from the processor lookup after silence: recorded, payment failed, the workflow ends failed',
    async (_rule, _e, intentOverride) => {
      const p = await pendingPayment();
      await completeIdentity(p);
      processor.set(p, intentOverride(p));
      await payments.startSettlement(p.paymentId);
      expect(await outcome(p)).toBe('failed');
      await expectMismatchFailed(p);
      const [record] = await webhookEvents(w.t, { paymentId: p.paymentId });
      expect(record).toMatchObject({ event_id: `lookup:${p.intentId}`, detail: { code: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH' } });
    },
  );

  it('when the mismatch record cannot be written: 500 PAYMENT_MISMATCH_RECORD_FAILED; the redelivery records it', async () => {
    const p = await pendingPayment();
    await payments.startSettlement(p.paymentId);
    const event = intentEvent('payment_intent.succeeded', p, { amount_received: 100 });
    await withWebhookEventsRefused(w.t, async () => {
      const res = await send(event);
      expect([res.status, errorCode(res)]).toEqual([500, 'PAYMENT_MISMATCH_RECORD_FAILED']);
      expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');
    });
    const redelivered = await send(event);
    expect([redelivered.status, redelivered.body]).toEqual([200, { received: true }]);
    expect(await outcome(p)).toBe('failed');
    await expectMismatchFailed(p);
  });
});

describe('duplicate and out-of-order callbacks', () => {
  it('duplicates (redeliveries, and a late one after completion) complete and settle once, and signal the activation once', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    const event = intentEvent('payment_intent.succeeded', p);
    const [a, b] = await Promise.all([send(event), send(event)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await send(event);
    expect(await outcome(p)).toBe('completed');
    const first = await expectCompleted(p);
    expect(await activation(p).result()).toBe('activated');

    // After completion: the route acknowledges and delivers nothing; a late delivery straight to Temporal
    // (a race with the route's read) starts a run that changes nothing and does not signal again.
    expect((await send(event)).body).toEqual({ received: true });
    await payments.deliverEvent(p.paymentId, { eventId: event.id, type: 'payment_intent.succeeded' });
    const late = settlement(p);
    expect(await late.result()).toBe('completed');
    const after = await paymentRow(w.t, p.paymentId);
    expect([after.receipt_number, after.paid_at]).toEqual([first.receipt_number, first.paid_at]);
    expect(await orderPaidSignals(p)).toBe(1);
    expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => e.outcome)).toEqual(['settled']);
    // startSettlement of a settled payment (a replayed create) starts nothing.
    await payments.startSettlement(p.paymentId);
    expect((await settlement(p).describe()).status.name).toBe('COMPLETED');
  });

  it('a delivery that reaches Temporal just after settlement (the route read processing) lands in the same run', async () => {
    const p = await pendingPayment();
    await payments.deliverEvent(p.paymentId, { eventId: 'evt_first', type: 'payment_intent.succeeded' });
    const { runId } = await settlement(p).describe();
    await eventually(async () => expect((await paymentRow(w.t, p.paymentId)).status).toBe('completed'), 10_000);
    expect((await settlement(p).describe()).status.name).toBe('RUNNING');

    await payments.deliverEvent(p.paymentId, { eventId: 'evt_raced', type: 'payment_intent.succeeded' });
    expect(await outcome(p)).toBe('completed');
    expect((await settlement(p).describe()).runId).toBe(runId);
    expect((await settlement(p).query(settlementStateQuery)).processedEventIds).toEqual(['evt_first', 'evt_raced']);
    expect(await orderPaidSignals(p)).toBe(1);
  });

  it('a second payment succeeding for an order already paid is completed (the money was taken) and flagged for refund', async () => {
    const first = await pendingPayment();
    // An earlier attempt of the same order that failed (one live payment per order), whose intent succeeds after all.
    const second = await insertPayment(w.t, { sameOrderAs: first, status: 'failed' });
    await send(intentEvent('payment_intent.succeeded', first));
    expect(await outcome(first)).toBe('completed');
    const paid = await expectCompleted(first);

    await send(intentEvent('payment_intent.succeeded', second));
    expect(await outcome(second)).toBe('completed');
    expect(await paymentRow(w.t, second.paymentId)).toMatchObject({ status: 'completed', receipt_number: match.any(String) });
    expect(await webhookEvents(w.t, { paymentId: second.paymentId })).toContainEqual(
      expect.objectContaining({
        type: 'payment.duplicate_charge',
        outcome: 'duplicate_charge',
        detail: { code: 'PAYMENT_DUPLICATE_CHARGE', orderId: first.orderId, paidByPaymentId: first.paymentId },
      }),
    );
    // The first payment and the order are as they were; the activation heard of the payment once.
    expect(await paymentRow(w.t, first.paymentId)).toMatchObject({ receipt_number: paid.receipt_number, paid_at: paid.paid_at });
    expect(await orderStatus(first)).toBe('paid');
    expect(await orderPaidSignals(first)).toBe(1);
    expect((await webhookEvents(w.t, { paymentId: first.paymentId })).map((e) => e.outcome)).toEqual(['settled']);
  });

  it('a stale payment_failed arriving after succeeded never downgrades', async () => {
    const p = await pendingPayment();
    // Both reach the workflow before it has acted: applied in arrival order, failure after success is ignored.
    await payments.deliverEvent(p.paymentId, { eventId: 'evt_ok_1', type: 'payment_intent.succeeded' });
    await payments.deliverEvent(p.paymentId, {
      eventId: 'evt_stale_fail',
      type: 'payment_intent.payment_failed',
      failureMessage: 'declined',
    });
    expect(await outcome(p)).toBe('completed');
    await expectCompleted(p);
    // And through the route once completed: acknowledged, not delivered.
    expect((await send(intentEvent('payment_intent.canceled', p))).status).toBe(200);
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('completed');
  });

  it('callbacks that waited in the inbox together reach the run in arrival order: a failure, then the success, completes', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    const failed = intentEvent('payment_intent.payment_failed', p, { last_payment_error: { message: 'Card declined' } });
    const succeeded = intentEvent('payment_intent.succeeded', p);
    for (const event of [failed, succeeded]) expect((await sendCardEvent(w, event)).status).toBe(200);
    expect(await relay.drain()).toMatchObject({ delivered: 2, failed: 0 });
    expect(await outcome(p)).toBe('completed');
    expect((await settlement(p).query(settlementStateQuery)).processedEventIds).toEqual([failed.id, succeeded.id]);
    await expectCompleted(p);
    expect(await activation(p).result()).toBe('activated');
    expect(await orderPaidSignals(p)).toBe(1);
  });

  it('events may arrive before the workflow exists; a later startSettlement joins the same run', async () => {
    const p = await pendingPayment();
    await payments.deliverEvent(p.paymentId, {
      eventId: 'evt_early_fail',
      type: 'payment_intent.payment_failed',
      failureMessage: 'Card declined',
    });
    await payments.deliverEvent(p.paymentId, { eventId: 'evt_early_ok', type: 'payment_intent.succeeded' });
    await payments.startSettlement(p.paymentId);
    expect(await outcome(p)).toBe('completed');
    expect((await settlement(p).query(settlementStateQuery)).processedEventIds).toContain('evt_early_ok');
    await expectCompleted(p);
  });

  it('a failure, then the processor succeeds on a retry with another card: a new run completes it', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    await send(intentEvent('payment_intent.payment_failed', p, { last_payment_error: { message: 'Card declined' } }));
    expect(await outcome(p)).toBe('failed');
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('failed');

    await send(intentEvent('payment_intent.succeeded', p));
    expect(await outcome(p)).toBe('completed');
    await expectCompleted(p);
    expect(await activation(p).result()).toBe('activated');
    expect(await orderPaidSignals(p)).toBe(1);
  });
});

describe('silence, then the processor is asked', () => {
  it('asks after the configured silence, keeps waiting while the intent is open, settles when it has succeeded', async () => {
    const p = await pendingPayment();
    await completeIdentity(p);
    processor.set(p, { status: 'processing', amountReceivedMinor: 0n });
    await payments.startSettlement(p.paymentId);

    await env.sleep(SILENCE_SECONDS * 1000 + 1_000);
    await eventually(() => expect(processor.calls.filter((id) => id === p.intentId)).toHaveLength(1));
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');

    processor.set(p); // succeeded, matching
    expect(await outcome(p)).toBe('completed');
    expect(processor.calls.filter((id) => id === p.intentId)).toHaveLength(2);
    await expectCompleted(p);
    expect(await activation(p).result()).toBe('activated');
    expect(await orderPaidSignals(p)).toBe(1);
  });

  it('a canceled intent fails the payment with payment_intent.canceled', async () => {
    const p = await pendingPayment();
    processor.set(p, { status: 'canceled', amountReceivedMinor: 0n });
    await payments.startSettlement(p.paymentId);
    expect(await outcome(p)).toBe('failed');
    expect(await paymentRow(w.t, p.paymentId)).toMatchObject({ status: 'failed', failure_reason: 'payment_intent.canceled' });
  });

  it('stops asking after the configured number of lookups; the payment stays processing and a late webhook still settles it', async () => {
    const p = await pendingPayment();
    processor.set(p, { status: 'requires_payment_method', amountReceivedMinor: 0n });
    await payments.startSettlement(p.paymentId);
    expect(await outcome(p)).toBe('open');
    expect(processor.calls.filter((id) => id === p.intentId)).toHaveLength(MAX_LOOKUPS);
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');

    await send(intentEvent('payment_intent.succeeded', p));
    expect(await outcome(p)).toBe('completed');
    await expectCompleted(p);
  });

  it('does not ask when nothing is silent: a callback within the window settles without a lookup', async () => {
    const p = await pendingPayment();
    await payments.startSettlement(p.paymentId);
    await env.sleep((SILENCE_SECONDS - 60) * 1000);
    await send(intentEvent('payment_intent.succeeded', p));
    expect(await outcome(p)).toBe('completed');
    expect(processor.calls).not.toContain(p.intentId);
  });
});
