// What the store order workflow shares with its callers: its id, its signals and query, their
// payloads, and the failure types activities throw at it. Pure: the API (src/store/runs-temporal.ts), the worker,
// activities and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineSignal } from '@temporalio/workflow';
// Type-only (erased at build).
import type { StoreOrderStatus } from '../../src/entities/store';

/** One workflow per order (a requeue of a finished run starts the id again). */
export const storeOrderWorkflowId = (orderId: string) => `store-order:${orderId}`;
/** Its type: the workflow function's name (workflows/store-order.ts), for a start that names it (the requeue's signal-with-start). */
export const STORE_ORDER_WORKFLOW_TYPE = 'storeOrderWorkflow';

/** Timers of one order, all from configuration. */
export interface StoreOrderTimers {
  /** An order still unpaid this long after its creation expires (STORE_ORDER_PAYMENT_TTL). */
  paymentTtlMs: number;
  /** A paid (or requeued) order without a profile this long after fails, refund due (STORE_DELIVERY_DEADLINE). */
  deliveryDeadlineMs: number;
  /** How often a pending order is read from the provider without a callback, and an unpaid order's row is checked (STORE_ORDER_POLL_EVERY). */
  pollIntervalMs: number;
}

export interface StoreOrderWorkflowInput {
  orderId: string;
  timers: StoreOrderTimers;
  /** Started by an admin requeue: the order is paid, placement starts at once. */
  requeue?: boolean;
  /** Whether this namespace has our search attributes (the Java test server does not need them). */
  searchAttributes?: boolean;
}

/** The run's view (query); never the profile. */
export interface StoreOrderState {
  status: StoreOrderStatus;
  paid: boolean;
  /** Callbacks heard (each only a trigger to read the order from the provider). */
  callbacks: number;
  placements: number;
  reconciliations: number;
}

/** The order's payment completed (the payment service, or the settlement run). */
export const storeOrderPaidSignal = defineSignal<[{ paymentId: string }]>('storeOrderPaid');
/** The provider's verified callback for the order: read the order from the provider (read-only reconciliation). */
export const providerCallbackSignal = defineSignal<[{ status: string }]>('providerCallback');
/** Staff requeued the order (a run still going restarts its placement with a new deadline). */
export const requeueSignal = defineSignal<[]>('requeue');
export const storeOrderStateQuery = defineQuery<StoreOrderState>('storeOrderState');

/** What a placement or a reconciliation found: issued (stored, e-mail queued), still pending, or failed for good. */
export type ProviderOutcome = { status: 'issued' } | { status: 'pending' } | { status: 'failed'; reason: string };

/** failureReason of an order without a profile at its delivery deadline. */
export const DELIVERY_DEADLINE_PASSED = 'STORE_DELIVERY_DEADLINE';
/** failureReason of an order whose placement was retried until its deadline. */
export const PROVIDER_UNAVAILABLE = 'STORE_PROVIDER_UNAVAILABLE';

/** ApplicationFailure type of a definite refusal by the provider (non-retryable). */
export const STORE_PROVIDER_REJECTION = 'StoreProviderRejection';
/** ApplicationFailure type of an order row that does not exist (non-retryable). */
export const STORE_ORDER_MISSING = 'StoreOrderMissing';

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export type StoreOrderWorkflow = (input: StoreOrderWorkflowInput) => Promise<StoreOrderStatus>;

/** What a store order's run starts from (its pending start stores it: src/workflow-starts). */
export interface StoreOrderStartArgs {
  orderId: string;
  userId: string;
}
