import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { ProviderIntent } from '../../src/payments/providers';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  ACTIVATION_END_REASONS,
  orderPaidSignal,
  verifyIdentityUpdate,
  type ActivationTimers,
  type ActivationWorkflowInput,
} from '../../workflows/contracts/activation-contract';
import { iccid, orderStatus } from '../helpers/activations';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog, type InsertedActivation } from '../helpers/read-app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, runTestWorker, type RunningTestWorker } from '../helpers/temporal';

// Issue 11, "Stranded runs and money", second case: the cancel takes a last look at the order, money
// taken for an activation that ended is flagged for refund, and a cancelled order's open card intent
// is cancelled at the processor. Real activities on Postgres, a fake card processor, time skipping.
jest.setTimeout(120_000);

const TIMERS: ActivationTimers = {
  cancelAfterMs: 3 * 3600_000,
  identityPollIntervalMs: 5_000,
  identityRequestTtlMs: 300_000,
  // No periodic look at the order: the last look before the cancel is what these tests prove.
  paidCheckIntervalMs: 48 * 3600_000,
};

/** The card processor: what a cancel answers, per intent (`canceled` unless the test says otherwise). */
const processor = {
  cancelCalls: [] as string[],
  onCancel: new Map<string, (intent: ProviderIntent) => ProviderIntent>(),
  intents: new Map<string, ProviderIntent>(),
};
const paymentProvider = {
  name: 'card_processor' as const,
  retrieveIntent: (id: string) => Promise.resolve(processor.intents.get(id) ?? null),
  cancelIntent(id: string) {
    processor.cancelCalls.push(id);
    const intent = processor.intents.get(id);
    if (!intent) return Promise.resolve(null);
    const after = (processor.onCancel.get(id) ?? ((i) => ({ ...i, status: 'canceled' })))(intent);
    processor.intents.set(id, after);
    return Promise.resolve(after);
  },
};

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
let taskQueue: string;
let activities: ReturnType<typeof realActivities>;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows')), createTestApp()]);
  await seedCatalog(t);
  taskQueue = uniqueTaskQueue('activation-refunds');
  activities = realActivities(t.db, t.config, { paymentProvider });
  worker = await runTestWorker(env, { taskQueue: taskQueue, workflowBundle: bundle, activities: activities });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

async function start(activationId: string) {
  return env.client.workflow.start(activationWorkflow, {
    taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [{ activationId, simType: 'physical', timers: TIMERS } satisfies ActivationWorkflowInput],
  });
}

/** Verification that completes (the mock answers at the first poll), recorded before returning. */
async function verify(handle: WorkflowHandle, identityType: 'citizen' | 'visitor' = 'citizen') {
  await handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType, idNumber: '1234567890' }] });
  await env.sleep(10_000);
}

/** A card payment of the order, as the payment service writes it (`processing` waits on the processor). */
async function insertPayment(a: InsertedActivation, userId: string, status: 'processing' | 'completed') {
  const paymentId = randomUUID();
  const intentId = `pi_${paymentId.replace(/-/g, '').slice(0, 24)}`;
  await t.db.query(
    `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
       gateway_transaction_id, receipt_number, paid_at, created_at, updated_at)
     values ($1, $2, $3, 'card_scheme_1', 'card_processor', $4, 4900, 'SAR', $5, $6, $7, $8, $9, now(), now())`,
    [
      paymentId,
      a.orderId,
      userId,
      status,
      `idem-${paymentId}`,
      '0'.repeat(64),
      intentId,
      status === 'completed' ? `RCP-TEST-${paymentId.slice(0, 8)}` : null,
      status === 'completed' ? new Date() : null,
    ],
  );
  if (status === 'completed') await t.db.query(`update orders set status = 'paid' where id = $1`, [a.orderId]);
  processor.intents.set(intentId, {
    id: intentId,
    status: status === 'completed' ? 'succeeded' : 'requires_payment_method',
    amountMinor: 4900n,
    amountReceivedMinor: status === 'completed' ? 4900n : 0n,
    currency: 'SAR',
    metadata: { payment_id: paymentId, order_id: a.orderId, user_id: userId },
  });
  return { paymentId, intentId };
}

const activation = async (id: string) =>
  (
    await t.db.query<{ status: string; failed_reason: string | null }>('select status, failed_reason from activations where id = $1', [id])
  )[0];
const order = (id: string) => orderStatus(t.db, id);
const payment = async (id: string) =>
  (
    await t.db.query<{ status: string; failure_reason: string | null }>('select status, failure_reason from payments where id = $1', [id])
  )[0];
const records = (orderId: string) =>
  t.db.query<Record<string, unknown>>(
    `select code, payment_id, order_id, activation_id, reason, resolved_at from reconciliation_records where order_id = $1 order by created_at`,
    [orderId],
  );

describe('the cancel takes a last look at the order', () => {
  it('an order paid meanwhile (its signal lost) is not cancelled: the activation proceeds as paid', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    await verify(handle);
    await insertPayment(created, userId, 'completed'); // committed, but no signal ever reaches the run

    expect(await handle.result()).toBe('activated');
    expect(await order(created.orderId)).toBe('paid');
    expect(await records(created.orderId)).toEqual([]);
  });

  it('paid but never verified by the deadline: cancelled, the order stays paid, and the payment is flagged for refund', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    const { paymentId } = await insertPayment(created, userId, 'completed');
    await handle.signal(orderPaidSignal, { paymentId });

    expect(await handle.result()).toBe('cancelled');
    expect(await activation(created.activationId)).toEqual({
      status: 'cancelled',
      failed_reason: ACTIVATION_END_REASONS.identityNotCompleted,
    });
    expect(await order(created.orderId)).toBe('paid');
    expect(await records(created.orderId)).toEqual([
      {
        code: 'PAYMENT_REFUND_REQUIRED',
        payment_id: paymentId,
        order_id: created.orderId,
        activation_id: created.activationId,
        reason: ACTIVATION_END_REASONS.identityNotCompleted,
        resolved_at: null,
      },
    ]);
  });
});

describe('money taken for an activation that failed', () => {
  it('an operator refusal after payment: `failed`, and a refund record with the operator reason', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId, iccid: iccid('9004') });
    const handle = await start(created.activationId);
    const { paymentId } = await insertPayment(created, userId, 'completed');
    await handle.signal(orderPaidSignal, { paymentId });
    await verify(handle);

    expect(await handle.result()).toBe('failed');
    expect(await records(created.orderId)).toEqual([
      expect.objectContaining({ code: 'PAYMENT_REFUND_REQUIRED', payment_id: paymentId, reason: 'SIM blocked by the operator' }),
    ]);
  });

  it('over the SIM limit after payment: `failed`, and a refund record', async () => {
    const { userId } = await signUp(t);
    // A visitor may hold one SIM; this person already has one, verified as a visitor.
    const live = await insertActivation(t, { userId, status: 'activated', identityStatus: 'completed' });
    await t.db.query(`update activations set identity_type = 'visitor' where id = $1`, [live.activationId]);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    const { paymentId } = await insertPayment(created, userId, 'completed');
    await handle.signal(orderPaidSignal, { paymentId });
    await verify(handle, 'visitor');

    expect(await handle.result()).toBe('failed');
    expect(await records(created.orderId)).toEqual([
      expect.objectContaining({ code: 'PAYMENT_REFUND_REQUIRED', payment_id: paymentId, reason: 'SIM_LIMIT_EXCEEDED' }),
    ]);
  });
});

describe('a cancelled order and its open card intent', () => {
  it('the intent is cancelled at the processor and the payment fails', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    const { paymentId, intentId } = await insertPayment(created, userId, 'processing');

    expect(await handle.result()).toBe('cancelled');
    expect(await activation(created.activationId)).toEqual({
      status: 'cancelled',
      failed_reason: ACTIVATION_END_REASONS.identityNotCompleted,
    });
    expect(await order(created.orderId)).toBe('cancelled');
    expect(processor.cancelCalls).toContain(intentId);
    expect(await payment(paymentId)).toEqual({ status: 'failed', failure_reason: 'order_cancelled' });
    expect(await records(created.orderId)).toEqual([]);
  });

  it('a cancel that races a success: the payment completes, the order stays cancelled, and a refund record is written', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    const { paymentId, intentId } = await insertPayment(created, userId, 'processing');
    // The customer's confirmation lands just before our cancel: the processor took the money.
    processor.onCancel.set(intentId, (intent) => ({ ...intent, status: 'succeeded', amountReceivedMinor: intent.amountMinor }));

    expect(await handle.result()).toBe('cancelled');
    expect(await payment(paymentId)).toMatchObject({ status: 'completed' });
    expect(await order(created.orderId)).toBe('cancelled');
    expect(await records(created.orderId)).toEqual([
      expect.objectContaining({ code: 'PAYMENT_REFUND_REQUIRED', payment_id: paymentId, activation_id: created.activationId }),
    ]);
  });

  it('a card success delivered after the cancel completes the payment for refund and does not wake the activation', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    const { paymentId, intentId } = await insertPayment(created, userId, 'processing');
    // The processor cannot cancel it any more (it is confirming): the intent stays open.
    processor.onCancel.set(intentId, (intent) => ({ ...intent, status: 'processing' }));
    expect(await handle.result()).toBe('cancelled');
    expect(await payment(paymentId)).toMatchObject({ status: 'processing' });

    // Then the processor's success arrives (webhook → settlement run → this activity).
    const settled = await new MockActivityEnvironment().run(
      (event: Parameters<typeof activities.settlePayment>[0]) => activities.settlePayment(event),
      {
        paymentId,
        eventId: 'evt_after_cancel',
        runId: 'settlement-run-1',
      },
    );
    expect(settled).toEqual({ status: 'completed', activationId: null, signalActivation: false });
    expect(await payment(paymentId)).toMatchObject({ status: 'completed' });
    expect(await order(created.orderId)).toBe('cancelled');
    expect(await records(created.orderId)).toEqual([
      expect.objectContaining({
        code: 'PAYMENT_REFUND_REQUIRED',
        payment_id: paymentId,
        activation_id: created.activationId,
        reason: 'PAID_AFTER_ORDER_CANCELLED',
      }),
    ]);
  });
});
