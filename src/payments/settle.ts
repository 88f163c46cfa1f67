import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrderStatus } from '../entities/order';

export interface SettledPayment {
  paymentId: string;
  orderId: string;
  /** The activation to signal "order paid", when the order has one. */
  activationId: string | null;
  /** False when the payment was already completed: nothing changed (duplicate delivery). */
  changed: boolean;
  /**
   * The order's status afterwards. `cancelled`: the order was cancelled (its activation ended) before
   * this payment succeeded, so the order stays cancelled and the money must be refunded.
   */
  orderStatus: OrderStatus;
}

/** RCP-<yyyymmdd>-<8 hex>: unique (index), readable on a receipt. */
export function receiptNumber(now: Date): string {
  return `RCP-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

/**
 * Completes a payment and marks its order paid, in the caller's transaction.
 * Idempotent: a completed payment is left as it is (`changed: false`), so
 * duplicate deliveries settle once. A failed payment can still complete when
 * the processor later confirms success; `refunded` never moves. A cancelled
 * order stays cancelled (`orderStatus`): the caller flags the payment for refund.
 * Callers lock the order first (lockOrderForSettlement), as ending an activation does.
 */
export async function completePayment(em: EntityManager, paymentId: string, now: Date): Promise<SettledPayment | null> {
  const [updated] = await em.execute<{ order_id: string }[]>(
    `update payments set status = 'completed', paid_at = ?, receipt_number = coalesce(receipt_number, ?), failure_reason = null, updated_at = ?
      where id = ? and status in ('pending', 'processing', 'failed') returning order_id`,
    [now, receiptNumber(now), now, paymentId],
  );
  const orderId =
    updated?.order_id ?? (await em.execute<{ order_id: string }[]>('select order_id from payments where id = ?', [paymentId]))[0]?.order_id;
  if (!orderId) return null;
  if (updated) {
    await em.execute(`update orders set status = 'paid', updated_at = ? where id = ? and status = 'pending_payment'`, [now, orderId]);
  }
  const [order] = await em.execute<{ status: OrderStatus }[]>('select status from orders where id = ?', [orderId]);
  const [activation] = await em.execute<{ id: string }[]>('select id from activations where order_id = ? limit 1', [orderId]);
  return { paymentId, orderId, activationId: activation?.id ?? null, changed: Boolean(updated), orderStatus: order.status };
}

/**
 * Locks the payment's order (so two payments of one order settle one after the other) and
 * names another payment that already completed that order, if any: this payment is then a
 * second charge for it (two intents paid, or a failed intent retried after another paid).
 * Null when the payment does not exist.
 */
export async function lockOrderForSettlement(
  em: EntityManager,
  paymentId: string,
): Promise<{ orderId: string; paidByPaymentId: string | null } | null> {
  const [order] = await em.execute<{ id: string }[]>(
    'select o.id from orders o join payments p on p.order_id = o.id where p.id = ? for update of o',
    [paymentId],
  );
  if (!order) return null;
  // Paid before this one: a retried settlement of the first payment must not see the second as its predecessor.
  const [other] = await em.execute<{ id: string }[]>(
    `select other.id from payments other join payments me on me.order_id = other.order_id and me.id <> other.id
      where me.id = ? and other.status = 'completed' and (me.status <> 'completed' or other.paid_at < me.paid_at)
      order by other.paid_at limit 1`,
    [paymentId],
  );
  return { orderId: order.id, paidByPaymentId: other?.id ?? null };
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
