import { query, type Sql } from '../db/sql';
import type { ReconciliationCode } from '../http/error-codes';

/**
 * Reconciliation records: money that support must act on (a refund to make, a processor answer that
 * does not match). Written in the transaction of the change that causes them, one per fact (`key`),
 * so a retried activity or a redelivered event never writes a second. Support lists and resolves
 * them (src/reconciliation/service.ts). Never holds payloads, card data or contact data.
 */
export interface ReconciliationEntry {
  code: ReconciliationCode;
  /** What makes the record unique: `refund:<paymentId>`, `duplicate:<paymentId>`, `mismatch:<eventId>`. */
  key: string;
  paymentId?: string | null;
  orderId?: string | null;
  activationId?: string | null;
  /** A short machine reason (SIM_LIMIT_EXCEEDED, PAID_AFTER_ORDER_CANCELLED, an operator's reason). */
  reason?: string | null;
  /** What support needs to act: amounts, processor ids, which rules failed. */
  detail?: Record<string, unknown>;
  now: Date;
}

/** Inserts the record unless one with its key exists; true when this call wrote it. */
export async function writeReconciliationRecord(sql: Sql, entry: ReconciliationEntry): Promise<boolean> {
  const inserted = await sql.rows<{ id: string }>(
    query(
      'reconciliation.write',
      `insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) on conflict (dedupe_key) do nothing returning id`,
    ),
    [
      entry.code,
      entry.key,
      entry.paymentId ?? null,
      entry.orderId ?? null,
      entry.activationId ?? null,
      entry.reason ?? null,
      JSON.stringify(entry.detail ?? {}),
      entry.now,
    ],
  );
  return inserted.length > 0;
}

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
  amount: string;
  currency: string;
  provider: string;
  gatewayTransactionId: string | null;
}

/**
 * Flags a completed payment for refund (PAYMENT_REFUND_REQUIRED) in the caller's transaction: its
 * activation was cancelled or failed after the money was taken, or it succeeded after its order was
 * cancelled. One record per payment; null when it was flagged already, does not exist, or is a corporate payment.
 */
export async function flagRefund(
  sql: Sql,
  input: { paymentId: string; activationId?: string | null; reason: string; now: Date },
): Promise<RefundFlag | null> {
  const payment = await sql.one<{
    order_id: string;
    amount: string;
    currency: string;
    provider: string;
    gateway_transaction_id: string | null;
    activation_id: string | null;
  }>(
    query(
      'reconciliation.refundable-payment',
      `select p.order_id, p.amount, p.currency, p.provider, p.gateway_transaction_id,
              (select a.id from activations a where a.order_id = p.order_id order by a.created_at limit 1) as activation_id
         from payments p where p.id = $1 and p.provider <> 'company'`,
    ),
    [input.paymentId],
  );
  // A company seat's corporate payment (provider `company`) moved no money: its ended activation is no
  // longer a live charge (balance.ts), which is the company's whole refund.
  if (!payment) return null;
  const flag: RefundFlag = {
    code: REFUND_REQUIRED,
    paymentId: input.paymentId,
    orderId: payment.order_id,
    activationId: input.activationId ?? payment.activation_id,
    reason: input.reason,
    amount: payment.amount,
    currency: payment.currency,
    provider: payment.provider,
    gatewayTransactionId: payment.gateway_transaction_id,
  };
  const written = await writeReconciliationRecord(sql, {
    code: REFUND_REQUIRED,
    key: `refund:${input.paymentId}`,
    paymentId: flag.paymentId,
    orderId: flag.orderId,
    activationId: flag.activationId,
    reason: flag.reason,
    detail: { amount: flag.amount, currency: flag.currency, provider: flag.provider, gatewayTransactionId: flag.gatewayTransactionId },
    now: input.now,
  });
  return written ? flag : null;
}
