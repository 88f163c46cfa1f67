import { ACCOUNT_DELETED } from '../entities';
import type { Sql } from '../db/sql';
import type { StoreOrderStatus } from '../entities';
import { flagRefund, type RefundFlag } from '../payments/refunds';
import { closeRefundForRetry } from '../reconciliation/records';
import * as repo from './order-repository';

/**
 * A paid store order that ends without a profile, and its refund record until a requeue (esim-store spec
 * "States": provisioning, awaiting_provider → failed writes the record in the same transaction; failed →
 * provisioning is the requeue). The run (activities/store-orders.ts), an account's deletion
 * (src/compliance/deletion.ts) and the staff's requeue (./orders.ts) all go through here.
 */

/** Paid, no profile yet, still going: what a failure may end. (`paid` only for a deletion between payment and placement.) */
export const PAID_OPEN = new Set<StoreOrderStatus>(['paid', 'provisioning', 'awaiting_provider']);

export interface FailedStoreOrder {
  /** The row's status afterwards: an order that was not open is left as it was. */
  status: StoreOrderStatus;
  /** This call failed it (false: it had ended before). */
  changed: boolean;
  /** The refund record written (null: none was due, or it existed already). */
  refund: RefundFlag | null;
}

/**
 * Fails a paid order without a profile, inside the caller's transaction under the order's lock, with the
 * refund record of its payment (one per failure: a requeued order that fails again owes it again).
 * Anything else (issued, failed, unpaid, expired) is left as it was and answered.
 */
export async function failStoreOrder(tx: Sql, orderId: string, reason: string, now: Date): Promise<FailedStoreOrder | undefined> {
  const row = await repo.lockRunStoreOrder(tx, orderId);
  if (!row) return undefined;
  if (!PAID_OPEN.has(row.status)) return { status: row.status, changed: false, refund: null };
  await repo.setStoreOrderStatus(tx, orderId, { status: 'failed', now, failureReason: reason.slice(0, 255) });
  const refund = row.paymentId
    ? await flagRefund(tx, { paymentId: row.paymentId, reason: `store order failed: ${reason}`, now, occurrence: row.requeues })
    : null;
  return { status: 'failed', changed: true, refund };
}

/** Whether a failed order may be placed again: refused (why), or reopened (the refund record it closed, if any). */
export type Reopened = { refused: 'account_deleted' | 'refund_resolved' } | { closed: string | null };

/**
 * The checks of failed → provisioning, inside the caller's transaction with the order locked: never for a
 * deleted account (nothing may be issued to it), nor once support resolved the failure's refund record
 * (the money went back). Otherwise the open record is closed with the requeue, by `by` (null: the run).
 */
export async function reopenFailed(tx: Sql, row: repo.RunStoreOrder, closer: { by: string | null; now: Date }): Promise<Reopened> {
  if (row.failureReason === ACCOUNT_DELETED || (await repo.isBuyerDeleted(tx, row.userId))) return { refused: 'account_deleted' };
  if (!row.paymentId) return { closed: null };
  const closed = await closeRefundForRetry(tx, { paymentId: row.paymentId, occurrence: row.requeues }, { ...closer, note: REQUEUE_NOTE });
  return 'resolved' in closed ? { refused: 'refund_resolved' } : closed;
}

/** The resolution note of a refund record the order's requeue closed. */
export const REQUEUE_NOTE = 'Closed by the store order’s requeue: the order is placed again (a new failure writes a new record)';
