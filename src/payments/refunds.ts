// The undo of the step that takes money (completePayment, ./settle.ts): a payment taken for nothing is flagged
// for refund, as a reconciliation record support acts on (src/reconciliation/). Each process calls it in the
// transaction of the step that ends it after the charge: an activation that ends without a SIM
// (src/activations/end.ts), a payment that succeeds after its order was cancelled (activities/payments.ts), a
// paid store order that fails (src/store/failure.ts). docs/architecture.md, "Money taken and given back".
import type { Sql } from '../db/sql';
import { findRefundFacts, REFUND_REQUIRED, refundKey, writeReconciliationRecord } from '../reconciliation/records';
import { fromMinorUnits } from '../lib/money';

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
