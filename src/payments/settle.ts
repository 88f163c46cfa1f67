import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface SettledPayment {
  paymentId: string;
  orderId: string;
  /** The activation to signal "order paid", when the order has one. */
  activationId: string | null;
  /** False when the payment was already completed: nothing changed (duplicate delivery). */
  changed: boolean;
}

/** RCP-<yyyymmdd>-<8 hex>: unique (index), readable on a receipt. */
export function receiptNumber(now: Date): string {
  return `RCP-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

/**
 * Completes a payment and marks its order paid, in the caller's transaction.
 * Idempotent: a completed payment is left as it is (`changed: false`), so
 * duplicate deliveries settle once. A failed payment can still complete when
 * the processor later confirms success; `refunded` never moves.
 */
export async function completePayment(em: EntityManager, paymentId: string, now: Date): Promise<SettledPayment | null> {
  const [updated] = await em.execute<{ order_id: string }[]>(
    `update payments set status = 'completed', paid_at = ?, receipt_number = coalesce(receipt_number, ?), failure_reason = null, updated_at = ?
      where id = ? and status in ('pending', 'processing', 'failed') returning order_id`,
    [now, receiptNumber(now), now, paymentId],
  );
  const orderId = updated?.order_id ?? (await em.execute<{ order_id: string }[]>('select order_id from payments where id = ?', [paymentId]))[0]?.order_id;
  if (!orderId) return null;
  if (updated) {
    await em.execute(`update orders set status = 'paid', updated_at = ? where id = ? and status = 'pending_payment'`, [now, orderId]);
  }
  const [activation] = await em.execute<{ id: string }[]>('select id from activations where order_id = ? limit 1', [orderId]);
  return { paymentId, orderId, activationId: activation?.id ?? null, changed: Boolean(updated) };
}

/**
 * Fails a payment that is still open, with a reason. A completed payment is
 * never downgraded; returns whether anything changed.
 */
export async function failPayment(
  em: EntityManager,
  paymentId: string,
  reason: string,
  now: Date,
  opts: { onlyIfProcessing?: boolean } = {},
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update payments set status = 'failed', failure_reason = ?, updated_at = ?
      where id = ? and status in (${opts.onlyIfProcessing ? "'processing'" : "'pending', 'processing'"}) returning id`,
    [reason, now, paymentId],
  );
  return rows.length > 0;
}
