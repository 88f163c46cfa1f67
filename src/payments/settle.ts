import { randomBytes } from 'node:crypto';
import type { Sql } from '../db/sql';
import type { OrderStatus } from '../entities/order';
import type { StoreOrderPayments } from './store-orders';
import * as repo from './repository';

export interface SettledPayment {
  paymentId: string;
  orderId: string;
  /** The activation to signal "order paid", when the order has one. */
  activationId: string | null;
  /** The store order to signal "paid" (the order is one, and paid), else null. */
  storeOrderId: string | null;
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
 * order stays cancelled (`orderStatus`): the caller flags the payment for refund (flagRefund, ./refunds.ts,
 * this step's undo).
 * Callers lock the order first (lockOrderForSettlement), as ending an activation does. A store order
 * is the store's to mark paid (`store`, its face).
 */
export async function completePayment(
  tx: Sql,
  paymentId: string,
  now: Date,
  store: Pick<StoreOrderPayments, 'markPaid'>,
): Promise<SettledPayment | null> {
  const updated = await repo.markCompleted(tx, paymentId, now, receiptNumber(now));
  const orderId = updated ?? (await repo.findOrderOfPayment(tx, paymentId));
  if (!orderId) return null;
  if (updated) await repo.markOrderPaid(tx, orderId, now);
  const orderStatus = (await repo.findOrderStatus(tx, orderId))!;
  const activationId = await repo.findActivationOfOrder(tx, orderId);
  // A store order waiting for payment is `paid` with the order (an expired one stays expired: its order is cancelled).
  const storeOrderId = orderStatus === 'paid' ? await store.markPaid(tx, orderId, paymentId, now) : null;
  return { paymentId, orderId, activationId, storeOrderId, changed: Boolean(updated), orderStatus };
}
