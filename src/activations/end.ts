import type { Sql } from '../db/sql';
import type { ActivationStatus } from '../entities/activation';
import { flagRefund, type RefundFlag } from '../payments/refunds';
import * as repo from './repository';

const FINAL_STATUSES = new Set<ActivationStatus>(['activated', 'failed', 'cancelled']);

/** How an activation ends without reaching `activated`. */
export interface EndActivation {
  activationId: string;
  status: 'failed' | 'cancelled';
  /** Kept as failedReason (also for `cancelled`); absent keeps the one already written. */
  reason?: string;
  /** A last look: when the order is paid, change nothing and answer `paid` (the run proceeds as paid). */
  unlessPaid?: boolean;
}

export interface EndedActivation {
  /** The row's status afterwards: `paid` answers leave it as it was. */
  status: ActivationStatus;
  /** `unlessPaid` was asked and the order is paid: nothing was changed. */
  paid: boolean;
  /** The refund record written for a paid order (null: none was due, or it existed already). */
  refund: RefundFlag | null;
  /** The order was paid but no completed payment was found to refund. */
  paidWithoutPayment: boolean;
  orderId: string;
}

/**
 * Ends the activation `failed` or `cancelled` with a reason, inside the caller's transaction, under the
 * lock on its order, so a payment settling at the same moment is seen or waits: an unpaid order is
 * cancelled (it can no longer be paid), a paid one stays paid and its payment is flagged for refund
 * (a seat's corporate payment never is: flagRefund). Idempotent: an activation that already ended
 * answers its status. Its run (activities) and an account's deletion (src/compliance) both end rows here.
 */
export async function endActivation(tx: Sql, input: EndActivation, now: Date): Promise<EndedActivation | undefined> {
  const row = await repo.lockWithOrder(tx, input.activationId);
  if (!row) return undefined;
  const unchanged = { status: row.status, paid: false, refund: null, paidWithoutPayment: false, orderId: row.orderId };
  if (FINAL_STATUSES.has(row.status)) return unchanged;
  const paid = row.orderStatus === 'paid' || row.orderStatus === 'completed';
  if (input.unlessPaid && paid) return { ...unchanged, paid: true };
  await repo.endActivationRow(tx, { activationId: input.activationId, status: input.status, reason: input.reason ?? null, now });
  if (row.orderStatus === 'pending_payment') {
    await repo.cancelOrder(tx, row.orderId, now);
    return { ...unchanged, status: input.status };
  }
  if (!paid) return { ...unchanged, status: input.status };
  const payment = await repo.findCompletedPayment(tx, row.orderId);
  const reason = input.reason ?? `activation ${input.status}`;
  const refund = payment ? await flagRefund(tx, { paymentId: payment.id, activationId: input.activationId, reason, now }) : null;
  return { ...unchanged, status: input.status, refund, paidWithoutPayment: !payment };
}
