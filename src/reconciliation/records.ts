import type { Sql } from '../db/sql';
import type { ReconciliationCode } from '../http/error-codes';
import { lockRefundRecord, resolveRecord } from './repository';

// The reconciliation area's face (issue 35, "one public face per area"): other areas write and close records
// through this module, never ./repository.ts. A mismatch record is written as it is (src/payments/verify.ts); a
// refund record by flagRefund, beside the step that takes the money (src/payments/refunds.ts), which reads the
// payment as the record names it (findRefundFacts).
export { findRefundFacts, writeReconciliationRecord } from './repository';

/**
 * Reconciliation records: money that support must act on (a refund to make, a processor answer that
 * does not match). Written in the transaction of the change that causes them, one per fact (`key`),
 * so a retried activity or a redelivered event never writes a second (writeReconciliationRecord,
 * ./repository.ts). Support lists and resolves them (src/reconciliation/service.ts). Never holds
 * payloads, card data or contact data.
 */

/** Reconciliation code of a payment whose money was taken for an activation that ended without a SIM. */
export const REFUND_REQUIRED = 'PAYMENT_REFUND_REQUIRED' satisfies ReconciliationCode;
/** The key of a payment's refund record: one per payment, or per failure of an order placed again (`occurrence` ≥ 1). */
export const refundKey = (paymentId: string, occurrence = 0) => (occurrence ? `refund:${paymentId}:${occurrence}` : `refund:${paymentId}`);

/**
 * Closes a payment's open refund record (the `occurrence`-th failure's) because the order is placed again,
 * inside the caller's transaction, record locked: `resolved` when support already resolved it (the money
 * went back: the order must not be placed again), else the id of the record it closed (null: none).
 */
export async function closeRefundForRetry(
  tx: Sql,
  refund: { paymentId: string; occurrence: number },
  closer: { by: string | null; note: string; now: Date },
): Promise<{ resolved: true } | { closed: string | null }> {
  const record = await lockRefundRecord(tx, refund.paymentId, refundKey(refund.paymentId, refund.occurrence));
  if (!record) return { closed: null };
  if (record.resolvedAt) return { resolved: true };
  await resolveRecord(tx, record.id, closer);
  return { closed: record.id };
}
