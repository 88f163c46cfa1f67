// What the settlement workflow shares with its callers: its id, its signal and query, their
// payloads, and the failure type activities throw at it. Pure: the API (src/temporal/, webhooks),
// the worker, activities and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** One settlement run per payment (see src/payments/runs-temporal.ts for the id policies). */
export const paymentWorkflowId = (paymentId: string) => `payment:${paymentId}`;

/** A verified processor event (the webhook route verified it; the event id de-duplicates). */
export interface ProcessorEvent {
  /** The processor's event id: duplicates are recognized by it. */
  eventId: string;
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled';
  /** For payment_failed: the last payment error message. */
  failureMessage?: string;
}

export interface SettlementWorkflowInput {
  paymentId: string;
  /** Silence after which the processor is asked about the intent (and between later lookups). */
  silenceTimeoutMs: number;
  /** Lookups of an intent that stays open before the run stops polling (a later webhook still settles). */
  maxLookups: number;
  /** How long a settled run keeps listening for late deliveries before it closes (absent: closes at once). */
  settledLingerMs?: number;
  /** Carried across continue-as-new. */
  processedEventIds?: string[];
  lookups?: number;
}

/** `open`: the processor never gave a final answer within maxLookups; the payment stays `processing`. */
export type SettlementOutcome = 'completed' | 'failed' | 'open';

export interface SettlementState {
  outcome: SettlementOutcome | null;
  processedEventIds: string[];
  lookups: number;
  activationSignalled: boolean;
}

export const processorEventSignal = defineSignal<[ProcessorEvent]>('processorEvent');
export const settlementStateQuery = defineQuery<SettlementState>('settlementState');

/**
 * patched() id of settling in the workflow task (settlePayment as a local activity). Runs that settled
 * before it replay the activity task they recorded; every settlement after the deploy is local.
 */
export const LOCAL_SETTLEMENT_PATCH = 'settle-as-local-activity';

/** ApplicationFailure type of a payment row that does not exist (non-retryable in the workflow). */
export const PAYMENT_NOT_FOUND = 'PaymentNotFound';

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const SETTLEMENT_WORKFLOW_TYPE = 'settlementWorkflow';
export type SettlementWorkflow = (input: SettlementWorkflowInput) => Promise<SettlementOutcome>;
