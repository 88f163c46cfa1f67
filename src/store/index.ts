import type { Sql } from '../db/sql';
import type { StorePaymentMode } from '../entities';
import { markStoreOrderPaid, storePaymentModeOf } from './order-repository';

/**
 * The store area's face for payments (issue 35, "one public face per area"): what a payment asks of
 * the store's orders, in the caller's transaction (`sql` first). Its repositories stay its own; the
 * payment service and the settlement activities take this as a narrow dependency
 * (`Pick<StoreOrderPayments, 'markPaid'>`), wired in src/app.ts and worker/main.ts.
 */
export interface StoreOrderPayments {
  /** The payment mode of a store order's provider, or undefined when the order is no store order (the method table, src/payments/policy.ts). */
  paymentModeOf(sql: Sql, orderId: string): Promise<StorePaymentMode | undefined>;
  /**
   * A payment completed its order (src/payments/settle.ts): a store order waiting for payment moves to
   * `paid`. Answers the store order's id when the order is one (paid now or before), else null.
   */
  markPaid(sql: Sql, orderId: string, paymentId: string, now: Date): Promise<string | null>;
}

export const storeOrderPayments: StoreOrderPayments = { paymentModeOf: storePaymentModeOf, markPaid: markStoreOrderPaid };
