import type { Sql } from '../db/sql';
import type { StoreOrderStatus } from '../entities';
import { flagRefund, type RefundFlag } from '../reconciliation/records';
import * as repo from './order-repository';

/**
 * A paid store order that ends without a profile, and its refund record (esim-store spec "States":
 * provisioning, awaiting_provider → failed writes the record in the same transaction). The run
 * (activities/store-orders.ts) and an account's deletion (src/compliance/deletion.ts) both go through here.
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
 * refund record of its payment.
 * Anything else (issued, failed, unpaid, expired) is left as it was and answered.
 */
export async function failStoreOrder(tx: Sql, orderId: string, reason: string, now: Date): Promise<FailedStoreOrder | undefined> {
  const row = await repo.lockRunStoreOrder(tx, orderId);
  if (!row) return undefined;
  if (!PAID_OPEN.has(row.status)) return { status: row.status, changed: false, refund: null };
  await repo.setStoreOrderStatus(tx, orderId, { status: 'failed', now, failureReason: reason.slice(0, 255) });
  const refund = row.paymentId ? await flagRefund(tx, { paymentId: row.paymentId, reason: `store order failed: ${reason}`, now }) : null;
  return { status: 'failed', changed: true, refund };
}
