import { isUuid } from '../http/fields';
import type { EsimReceiptOutcome, StoreOrderReconciliation } from '../webhooks/esim-provider';
import { findStoreOrderStatus } from './order-repository';
import type { StoreOrderRuns } from './runs';

/**
 * The eSIM provider webhook's hand-off (spec "The eSIM provider webhook"): a verified callback for a
 * known store order signals its run, which reads the order from the provider (read-only
 * reconciliation); the callback's body is never trusted. An order that is already final (issued,
 * expired, failed: only staff requeue a failed one) changes nothing; an unknown order is acknowledged
 * as such. A signal Temporal does not take throws: the route answers 503 and the provider redelivers.
 */
export function createStoreOrderCallbacks(deps: { runs: Pick<StoreOrderRuns, 'providerCallback'> }): StoreOrderReconciliation {
  return {
    async enqueue(callback, sql): Promise<EsimReceiptOutcome> {
      const status = isUuid(callback.orderId) ? await findStoreOrderStatus(sql, callback.orderId.toLowerCase()) : undefined;
      if (status === undefined) return 'unknown_order';
      if (status === 'issued' || status === 'expired' || status === 'failed') return 'enqueued';
      await deps.runs.providerCallback(callback.orderId.toLowerCase(), callback.status);
      return 'enqueued';
    },
  };
}
