// The signals the API owes runs (./repository.ts keeps them until delivered): which run, which
// signal, its one argument, and for a signal-with-start the run to start. A builder per signal keeps the
// name and the argument's type from the workflow's contract; the table, the API's first attempt
// (./outbox.ts) and the relay (./relay.ts) take any of them as they are. A run's cancellation goes the
// same road, in its order among the run's signals.
import type { SignalDefinition } from '@temporalio/common';
import {
  activationWorkflowId,
  identityStartedSignal,
  orderPaidSignal,
  type IdentityStarted,
} from '../../workflows/contracts/activation-contract';
import { companyWorkflowId, readinessChangedSignal, type ReadinessGate } from '../../workflows/contracts/company-contract';
import {
  providerCallbackSignal,
  requeueSignal,
  storeOrderPaidSignal,
  storeOrderWorkflowId,
} from '../../workflows/contracts/store-order-contract';

/** One signal to deliver: written with the decision, sent at once or by the relay. Ids and options only. */
export interface PendingSignal {
  workflowId: string;
  /** The signal's name in the workflow's contract, or CANCEL_RUN. */
  signal: string;
  args: Record<string, unknown>;
  /** Signal-with-start: the run to start for it when none is running (its last one ended). */
  start?: RunStart;
}

/** What a signal-with-start starts: the workflow's type and input on a task queue, built from configuration when decided. */
export interface RunStart {
  workflowType: string;
  taskQueue: string;
  input: Record<string, unknown>;
  /** Keyword search attributes of the new run by name (src/temporal/search-attributes.ts); none where the namespace lacks them. */
  searchAttributes?: Record<string, string>;
}

/** Not a signal: Temporal's cancellation request to the run. `@` keeps it apart from every contract's signal names. */
export const CANCEL_RUN = '@cancel';

/** A pending signal as written: its row id lets the API's own attempt mark it. */
export interface EnqueuedSignal extends PendingSignal {
  id: string;
}

function signalOf<A extends object>(definition: SignalDefinition<[A]>, workflowId: string, args: A): PendingSignal {
  return { workflowId, signal: definition.name, args: { ...args } as Record<string, unknown> };
}

export const pendingSignal = {
  /** A verification started at the provider (src/activations/identity.ts): the run polls it. */
  identityStarted: (activationId: string, started: IdentityStarted) =>
    signalOf(identityStartedSignal, activationWorkflowId(activationId), started),
  /** The activation's order is paid (a payment completed at once, src/payments/service.ts). */
  activationPaid: (activationId: string, paymentId: string) => signalOf(orderPaidSignal, activationWorkflowId(activationId), { paymentId }),
  /** A gate of the company's readiness may have changed (roster staged, a contract payment): its run recomputes it from the database. */
  readinessChanged: (companyId: string, gate: ReadinessGate) => signalOf(readinessChangedSignal, companyWorkflowId(companyId), { gate }),
  /** The eSIM provider called back about a store order (src/store/callbacks.ts): the run reads the order from the provider. */
  providerCallback: (orderId: string, status: string) => signalOf(providerCallbackSignal, storeOrderWorkflowId(orderId), { status }),
  /** A store order is paid. */
  storeOrderPaid: (orderId: string, paymentId: string) => signalOf(storeOrderPaidSignal, storeOrderWorkflowId(orderId), { paymentId }),
  /** Staff requeued a store order (src/store/orders.ts): a running run places it again; a finished one is started again from `start`. */
  storeOrderRequeue: (orderId: string, start: RunStart): PendingSignal => ({
    workflowId: storeOrderWorkflowId(orderId),
    signal: requeueSignal.name,
    args: {},
    start,
  }),
  /** The run of what an account's deletion ended (src/compliance/deletion.ts) closes now rather than at its deadline. */
  cancelRun: (workflowId: string): PendingSignal => ({ workflowId, signal: CANCEL_RUN, args: {} }),
};

/**
 * What a delivery found: `signalled` (Temporal took the signal, the signal-with-start or the
 * cancellation), or `closed` when the run had already ended (Temporal answers "not found" for a run
 * that closed; a run whose start is still pending is never signalled, see the claim in
 * ./repository.ts). Throws when Temporal did not take it (it stays pending).
 */
export type SignalOutcome = 'signalled' | 'closed';
export type SignalSender = (signal: PendingSignal) => Promise<SignalOutcome>;
