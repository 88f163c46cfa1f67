import { isUuid } from '../http/fields';
import type { Sql } from '../db/sql';
import type { EnqueuedSignal } from '../workflow-signals/kinds';
import { pendingSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import { findStoreOrderStatus } from './order-repository';
import type { ProviderCallbacks, StoreProviderRegistry } from './providers/plugin';

// The seam between the eSIM provider webhook (src/webhooks/esim-provider.ts) and the store-order process:
// what the webhook hands over and what it is answered, declared here so the webhook depends on the store
// and not the other way round.

/** What an eSIM provider's callback may say of an order (spec "The eSIM provider webhook"). */
export const ESIM_CALLBACK_STATUSES = ['completed', 'failed'] as const;

/**
 * What a hand-off answers, kept as the receipt's outcome. These rows are de-duplication receipts
 * only, never reconciliation records: housekeeping ages them out (activities/housekeeping.ts).
 */
export const ESIM_RECEIPT_OUTCOMES = ['enqueued', 'unknown_order'] as const;
export type EsimReceiptOutcome = (typeof ESIM_RECEIPT_OUTCOMES)[number];

export interface EsimCallbackFacts {
  orderId: string;
  providerName: string;
  status: (typeof ESIM_CALLBACK_STATUSES)[number];
}

/**
 * Hands a verified callback's order to a read-only reconciliation (it reads the
 * order from the provider and trusts nothing in the callback but the order id).
 * Answers `unknown_order` when no such store order exists; throws when the
 * handoff fails (Postgres: the route answers 503 and the provider redelivers).
 */
export interface StoreOrderReconciliation {
  /**
   * `sql` is the receipt's transaction: reads and writes go through it (identical callbacks waiting on the
   * receipt hold the pool's other connections). Signals it writes go into `toSend`, sent once the receipt commits.
   */
  enqueue(callback: EsimCallbackFacts, sql: Sql, toSend: EnqueuedSignal[]): Promise<EsimReceiptOutcome>;
}

/** A partner whose own signed callbacks this route also takes (a store plugin's `callbacks`), under its slug. */
export interface PartnerCallbackSource {
  providerName: string;
  callbacks: ProviderCallbacks;
}

/** The registered plugins whose partner calls back in its own format (the HTTP partner), for the webhook to tell apart. */
export function partnerCallbacksOf(providers: StoreProviderRegistry): PartnerCallbackSource[] {
  return providers.slugs().flatMap((slug) => {
    const callbacks = providers.get(slug)?.callbacks;
    return callbacks ? [{ providerName: slug, callbacks }] : [];
  });
}

/**
 * The eSIM provider webhook's hand-off (spec "The eSIM provider webhook"): a verified callback for a
 * known store order becomes a pending signal to its run, written in the receipt's transaction and sent
 * after it commits (or by the worker's signal relay), so Temporal away refuses no callback. The run reads
 * the order from the provider (read-only reconciliation); the callback's body is never trusted. An order
 * that is already final (issued, expired, failed: only staff requeue a failed one) changes nothing; an
 * unknown order is acknowledged as such.
 */
export function createStoreOrderCallbacks(deps: { signals: Pick<WorkflowSignals, 'enqueue'> }): StoreOrderReconciliation {
  return {
    async enqueue(callback, sql, toSend): Promise<EsimReceiptOutcome> {
      const orderId = callback.orderId.toLowerCase();
      const status = isUuid(orderId) ? await findStoreOrderStatus(sql, orderId) : undefined;
      if (status === undefined) return 'unknown_order';
      if (status === 'issued' || status === 'expired' || status === 'failed') return 'enqueued';
      toSend.push(await deps.signals.enqueue(sql, pendingSignal.providerCallback(orderId, callback.status)));
      return 'enqueued';
    },
  };
}
