// The signals the API owes runs (./repository.ts keeps them until delivered): which run, which
// signal, its one argument. A builder per signal keeps the name and the argument's type from the
// workflow's contract; the table, the API's first attempt (./launch.ts) and the relay (./relay.ts)
// take any of them as they are.
import type { SignalDefinition } from '@temporalio/common';
import { activationWorkflowId, identityStartedSignal, orderPaidSignal, type IdentityStarted } from '../../workflows/activation-contract';
import { companyWorkflowId, readinessChangedSignal, type ReadinessGate } from '../../workflows/company-contract';
import { providerCallbackSignal, storeOrderPaidSignal, storeOrderWorkflowId } from '../../workflows/store-order-contract';

/** One signal to deliver: written with the decision, sent at once or by the relay. Ids and options only. */
export interface PendingSignal {
  workflowId: string;
  signal: string;
  args: Record<string, unknown>;
}

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
};

/**
 * What a delivery found: `signalled`, or `closed` when the run had already ended (Temporal answers
 * "not found" for a run that closed; a run whose start is still pending is never signalled, see the
 * claim in ./repository.ts). Throws when Temporal did not take it (it stays pending).
 */
export type SignalOutcome = 'signalled' | 'closed';
export type SignalSender = (signal: PendingSignal) => Promise<SignalOutcome>;
