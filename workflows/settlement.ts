import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  type LocalActivityOptions,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments';
import { activationWorkflowId, orderPaidSignal } from './contracts/activation-contract';
import { storeOrderPaidSignal, storeOrderWorkflowId } from './contracts/store-order-contract';
import {
  LOCAL_SETTLEMENT_PATCH,
  PAYMENT_NOT_FOUND,
  processorEventSignal,
  settlementStateQuery,
  type ProcessorEvent,
  type SettlementOutcome,
  type SettlementState,
  type SettlementWorkflowInput,
} from './contracts/settlement-contract';

/** Ids kept across continue-as-new: processor redeliveries come within days, not thousands of events. */
const KEPT_EVENT_IDS = 500;

/** The activities this workflow calls (activities/payments.ts; its cancelOpenIntents is the activation's). */
type SettlementActivities = Pick<PaymentActivities, 'settlePayment' | 'failPayment' | 'lookupIntent'>;

const RECORDS: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [PAYMENT_NOT_FOUND] },
};
const records = proxyActivities<SettlementActivities>(RECORDS);
// Settling is one short transaction on the money path: run inside the workflow task that heard the
// event (a local activity), so the activation is signalled in that same task, without waiting twice on
// the server's task queue (an activity task, then a workflow task for its result).
const local = proxyLocalActivities<SettlementActivities>(RECORDS);
// The processor may be down for a while: keep asking, with backoff, never surfaced.
const processor = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: [PAYMENT_NOT_FOUND] },
});

/**
 * Settlement of one payment that waits on the card processor (`payment:<paymentId>`).
 * Processor events arrive as signals (signal-with-start, so arrival order does not
 * matter) and are applied once each, in arrival order; the run ends when the payment is
 * settled and no event came for `settledLingerMs`. Silence longer than `silenceTimeoutMs` makes it
 * ask the processor for the intent and settle from that answer. A completed payment
 * signals its activation (order paid) exactly once.
 */
export async function settlementWorkflow(input: SettlementWorkflowInput): Promise<SettlementOutcome> {
  const { paymentId } = input;
  const seen = new Set(input.processedEventIds ?? []);
  const queue: ProcessorEvent[] = [];
  const state: SettlementState = { outcome: null, processedEventIds: [], lookups: input.lookups ?? 0, activationSignalled: false };

  setHandler(processorEventSignal, (event) => {
    // Duplicate deliveries (the processor retries, two webhook calls race) are dropped here.
    if (seen.has(event.eventId)) return;
    seen.add(event.eventId);
    queue.push(event);
  });
  setHandler(settlementStateQuery, () => ({ ...state, processedEventIds: [...seen] }));

  for (;;) {
    if (queue.length === 0 && state.outcome) {
      // Settled. A webhook that read the payment as processing a moment ago may still be handing
      // its event over: wait for it here rather than let signal-with-start open a second run.
      const lingerMs = input.settledLingerMs ?? 0;
      if (lingerMs === 0 || !(await condition(() => queue.length > 0, lingerMs, { summary: 'settled: linger for a late event' }))) break;
    }
    if (queue.length === 0 && workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      if (queue.length === 0) {
        return continueAsNew<typeof settlementWorkflow>({
          ...input,
          processedEventIds: [...seen].slice(-KEPT_EVENT_IDS),
          lookups: state.lookups,
        });
      }
    }
    const heard =
      queue.length > 0 || (await condition(() => queue.length > 0, input.silenceTimeoutMs, { summary: 'silence: look the payment up' }));
    if (heard) {
      state.outcome = await apply(queue.shift()!);
      continue;
    }
    if (state.lookups >= input.maxLookups) {
      log.warn('processor never settled the intent; stopping lookups', { paymentId, lookups: state.lookups });
      state.outcome = 'open';
      continue;
    }
    state.lookups += 1;
    const looked = await processor.lookupIntent({ paymentId, runId: workflowInfo().runId });
    if (looked.status === 'completed') await completed(looked);
    if (looked.status === 'completed' || looked.status === 'failed') state.outcome = looked.status;
  }

  await condition(allHandlersFinished);
  return state.outcome;

  async function apply(event: ProcessorEvent): Promise<SettlementOutcome> {
    if (event.type === 'payment_intent.succeeded') {
      const settle = patched(LOCAL_SETTLEMENT_PATCH) ? local.settlePayment : records.settlePayment;
      const settled = await settle({ paymentId, eventId: event.eventId, runId: workflowInfo().runId });
      if (settled.status === 'completed') {
        await completed(settled);
        return 'completed';
      }
      return 'failed';
    }
    const reason =
      event.type === 'payment_intent.canceled' ? 'payment_intent.canceled' : event.failureMessage || 'payment_intent.payment_failed';
    // Never downgrades: a payment already completed stays completed (the activity answers its status).
    const after = await records.failPayment({ paymentId, reason });
    return after.status === 'completed' ? 'completed' : 'failed';
  }

  /** Order paid → the activation, once per payment (the activity tells which run settled it). */
  async function completed(result: {
    activationId: string | null;
    storeOrderId?: string | null;
    signalActivation: boolean;
  }): Promise<void> {
    if (result.storeOrderId && result.signalActivation && !state.activationSignalled) {
      // A store order's run is told the same way (no activation: its order is a store order).
      state.activationSignalled = true;
      try {
        await getExternalWorkflowHandle(storeOrderWorkflowId(result.storeOrderId)).signal(storeOrderPaidSignal, { paymentId });
      } catch (err) {
        log.warn('store order could not be told it is paid', { paymentId, orderId: result.storeOrderId, error: String(err) });
      }
      return;
    }
    if (!result.activationId || !result.signalActivation || state.activationSignalled) return;
    state.activationSignalled = true;
    try {
      await getExternalWorkflowHandle(activationWorkflowId(result.activationId)).signal(orderPaidSignal, { paymentId });
    } catch (err) {
      // The activation already ended (cancelled, failed): the payment stays completed; support refunds.
      log.warn('activation could not be told the order is paid', { paymentId, activationId: result.activationId, error: String(err) });
    }
  }
}
