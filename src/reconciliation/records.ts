import type { Sql } from '../db/sql';
import type { ReconciliationCode } from '../http/error-codes';
import { fromMinorUnits } from '../lib/money';
import { findRefundFacts, lockRefundRecord, resolveRecord, writeReconciliationRecord } from './repository';

// The reconciliation area's face (issue 35, "one public face per area"): other areas write and close records
// through this module, never ./repository.ts. A mismatch record is written as it is (src/payments/verify.ts).
export { writeReconciliationRecord };

/**
 * Reconciliation records: money that support must act on (a refund to make, a processor answer that
 * does not match). Written in the transaction of the change that causes them, one per fact (`key`),
 * so a retried activity or a redelivered event never writes a second (writeReconciliationRecord,
 * ./repository.ts). Support lists and resolves them (src/reconciliation/service.ts). Never holds
 * payloads, card data or contact data.
 */

/** Reconciliation code of a payment whose money was taken for an activation that ended without a SIM. */
export const REFUND_REQUIRED = 'PAYMENT_REFUND_REQUIRED' satisfies ReconciliationCode;
/** The refund reason of a payment that succeeded after its order was cancelled. */
export const PAID_AFTER_ORDER_CANCELLED = 'PAID_AFTER_ORDER_CANCELLED';

/** What a refund record names, for the caller's warning. */
export interface RefundFlag {
  code: typeof REFUND_REQUIRED;
  paymentId: string;
  orderId: string;
  activationId: string | null;
  reason: string;
  /** The payment's amount as support reads it: a decimal string in its currency ("49.00"). */
  amount: string;
  currency: string;
  provider: string;
  gatewayTransactionId: string | null;
}

/** The key of a payment's refund record: one per payment, or per failure of an order placed again (`occurrence` ≥ 1). */
export const refundKey = (paymentId: string, occurrence = 0) => (occurrence ? `refund:${paymentId}:${occurrence}` : `refund:${paymentId}`);

/**
 * Flags a completed payment for refund (PAYMENT_REFUND_REQUIRED) in the caller's transaction: its
 * activation was cancelled or failed after the money was taken, or it succeeded after its order was
 * cancelled. One record per payment (per `occurrence`: a requeued store order that fails again owes it
 * again); null when it was flagged already, does not exist, or is a corporate payment.
 */
export async function flagRefund(
  sql: Sql,
  input: { paymentId: string; activationId?: string | null; reason: string; now: Date; occurrence?: number },
): Promise<RefundFlag | null> {
  const payment = await findRefundFacts(sql, input.paymentId);
  // A company seat's corporate payment (provider `company`) moved no money: its ended activation is no
  // longer a live charge (balance.ts), which is the company's whole refund.
  if (!payment) return null;
  const flag: RefundFlag = {
    code: REFUND_REQUIRED,
    paymentId: input.paymentId,
    orderId: payment.orderId,
    activationId: input.activationId ?? payment.activationId,
    reason: input.reason,
    amount: fromMinorUnits(payment.amountMinor, payment.currency),
    currency: payment.currency,
    provider: payment.provider,
    gatewayTransactionId: payment.gatewayTransactionId,
  };
  const written = await writeReconciliationRecord(sql, {
    code: REFUND_REQUIRED,
    key: refundKey(input.paymentId, input.occurrence),
    paymentId: flag.paymentId,
    orderId: flag.orderId,
    activationId: flag.activationId,
    reason: flag.reason,
    detail: { amount: flag.amount, currency: flag.currency, provider: flag.provider, gatewayTransactionId: flag.gatewayTransactionId },
    now: input.now,
  });
  return written ? flag : null;
}

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
