import { isUuid } from '../http/fields';
import type { EsimReceiptOutcome, PartnerCallbackSource, StoreOrderReconciliation } from '../webhooks/esim-provider';
import { pendingSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import { findStoreOrderStatus } from './order-repository';
import type { StoreProviderRegistry } from './providers/plugin';

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
