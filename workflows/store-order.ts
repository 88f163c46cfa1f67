import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { StoreOrderActivities } from '../activities/store-orders';
import type { StoreOrderStatus } from '../src/entities/store';
import {
  DELIVERY_DEADLINE_PASSED,
  PROVIDER_UNAVAILABLE,
  providerCallbackSignal,
  requeueSignal,
  STORE_ORDER_MISSING,
  STORE_PROVIDER_REJECTION,
  storeOrderPaidSignal,
  storeOrderStateQuery,
  type ProviderOutcome,
  type StoreOrderState,
  type StoreOrderWorkflowInput,
} from './contracts/store-order-contract';

const records = proxyActivities<StoreOrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [STORE_ORDER_MISSING] },
});
/**
 * Provider calls: a transient failure is retried with backoff until the order's delivery deadline
 * (scheduleToClose); a definite refusal is non-retryable and fails the order.
 */
const provider = (deliverByMs: number) =>
  proxyActivities<StoreOrderActivities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: Math.max(1_000, deliverByMs - Date.now()),
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: [STORE_PROVIDER_REJECTION, STORE_ORDER_MISSING],
    },
  });

/** The withdrawal on the way out of a cancelled run: a provider call, retried a while, never the run's end. */
const withdrawal = proxyActivities<StoreOrderActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [STORE_ORDER_MISSING] },
});

/** Runs recorded before it closed Cancelled without the withdrawal; the marker keeps their replay as it was. */
const WITHDRAW_ON_CANCEL_PATCH = 'store-order-withdraw-on-cancel';

/** How a placement ends: issued, or failed with a reason. */
type Final = Exclude<ProviderOutcome, { status: 'pending' }>;

/**
 * One store order (`store-order:<orderId>`): waits for its payment (expires unpaid after the payment
 * TTL), places the order with its provider, and ends `issued` (the profile stored, the QR e-mail queued
 * once) or `failed` (a refusal, retries until the deadline, or no profile by the delivery deadline; with
 * its refund record). While the provider works (`awaiting_provider`), a callback signal or the run's own
 * poll reads the order from the provider. A requeue (signal, or a new run of a finished order) places
 * it again with a new deadline. Activities never hand the profile back: history holds statuses only.
 * An account's deletion ends the order in its own transaction and cancels the run, which withdraws the
 * provider order on its way out (src/compliance/deletion.ts).
 */
export async function storeOrderWorkflow(input: StoreOrderWorkflowInput): Promise<StoreOrderStatus> {
  try {
    return await runStoreOrder(input);
  } catch (err) {
    if (isCancellation(err) && patched(WITHDRAW_ON_CANCEL_PATCH)) await withdraw(input.orderId);
    throw err;
  }
}

/** The order is final already (the deletion failed it): what the provider still holds is withdrawn where it can be. */
async function withdraw(orderId: string): Promise<void> {
  try {
    await CancellationScope.nonCancellable(() => withdrawal.withdrawStoreOrder({ orderId }));
  } catch (err) {
    // The run still closes Cancelled: the refund record tells support what to settle.
    log.warn('store order could not be withdrawn at its provider', { orderId, error: String(err) });
  }
}

async function runStoreOrder(input: StoreOrderWorkflowInput): Promise<StoreOrderStatus> {
  const { orderId, timers } = input;
  const state: StoreOrderState = {
    status: input.requeue ? 'provisioning' : 'pending_payment',
    paid: input.requeue ?? false,
    callbacks: 0,
    placements: 0,
    reconciliations: 0,
  };
  /** A callback not acted on yet (callbacks only trigger a read, so several count as one). */
  let callbackWaiting = false;
  let requeueAsked = false;

  setHandler(storeOrderStateQuery, () => state);
  setHandler(storeOrderPaidSignal, () => {
    state.paid = true;
  });
  setHandler(providerCallbackSignal, () => {
    state.callbacks += 1;
    callbackWaiting = true;
  });
  setHandler(requeueSignal, () => {
    requeueAsked = true;
  });

  const setStatus = (status: StoreOrderStatus) => {
    state.status = status;
  };

  if (!state.paid && !(await waitForPayment())) return finish('expired');
  if (state.status === 'pending_payment') setStatus('paid');

  let requeue = input.requeue ?? false;
  for (;;) {
    requeueAsked = false;
    const deliverByMs = Date.now() + timers.deliveryDeadlineMs;
    const begun = await records.beginProvisioning({ orderId, requeue, deliverByMs });
    if (begun.status !== 'provisioning') return finish(begun.status);
    setStatus('provisioning');
    const outcome = await deliver(deliverByMs, requeue);
    if (outcome === 'requeued') {
      requeue = true;
      continue;
    }
    if (outcome.status === 'issued') {
      setStatus('issued');
      return finish('issued');
    }
    const end = await records.failStoreOrder({ orderId, reason: outcome.reason });
    setStatus(end.status);
    if (end.status !== 'failed' || !requeueAsked) return finish(end.status);
    requeue = true;
  }

  /** True once paid; false when the TTL passed unpaid (the order then expired). */
  async function waitForPayment(): Promise<boolean> {
    const expiresAt = Date.now() + timers.paymentTtlMs;
    for (;;) {
      const left = expiresAt - Date.now();
      if (left <= 0) {
        // A last look under the order's lock: a payment that landed meanwhile is not expired.
        const end = await records.expireStoreOrder({ orderId });
        if (end.expired) return false;
        state.paid = true;
        return true;
      }
      const signalled = await condition(() => state.paid, Math.min(left, timers.pollIntervalMs), {
        summary: 'payment wait: check paid, or expire at TTL',
      });
      if (signalled) return true;
      // No signal for a while: the payment may have completed while Temporal was away.
      if (Date.now() < expiresAt && (await records.isStoreOrderPaid({ orderId }))) {
        state.paid = true;
        return true;
      }
    }
  }

  /** Placement, then the wait for the profile until `deliverByMs`. */
  async function deliver(deliverByMs: number, placedBefore: boolean): Promise<Final | 'requeued'> {
    const calls = provider(deliverByMs);
    let outcome = await providerCall(() => {
      if (placedBefore) {
        state.reconciliations += 1;
        return calls.reconcileStoreOrder({ orderId });
      }
      state.placements += 1;
      return calls.placeStoreOrder({ orderId });
    });
    while (outcome.status === 'pending') {
      setStatus('awaiting_provider');
      const left = deliverByMs - Date.now();
      if (left <= 0) return { status: 'failed', reason: DELIVERY_DEADLINE_PASSED };
      await condition(() => callbackWaiting || requeueAsked, Math.min(left, timers.pollIntervalMs), {
        summary: 'provider poll: read the order',
      });
      if (requeueAsked) return 'requeued';
      callbackWaiting = false;
      // A callback or the poll: read the order from the provider (at the deadline too: a last look).
      state.reconciliations += 1;
      outcome = await providerCall(() => provider(Math.max(deliverByMs, Date.now() + 30_000)).reconcileStoreOrder({ orderId }));
      if (outcome.status === 'pending' && Date.now() >= deliverByMs) return { status: 'failed', reason: DELIVERY_DEADLINE_PASSED };
    }
    return outcome;
  }

  /** A refusal or retries exhausted by the deadline become a `failed` outcome; anything else fails the run. */
  async function providerCall(call: () => Promise<ProviderOutcome>): Promise<ProviderOutcome> {
    try {
      return await call();
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === STORE_PROVIDER_REJECTION)
        return { status: 'failed', reason: cause.message };
      if (err instanceof ActivityFailure && !(cause instanceof ApplicationFailure && cause.type === STORE_ORDER_MISSING)) {
        return { status: 'failed', reason: PROVIDER_UNAVAILABLE };
      }
      throw err;
    }
  }

  async function finish(status: StoreOrderStatus): Promise<StoreOrderStatus> {
    state.status = status;
    await condition(allHandlersFinished);
    return status;
  }
}
