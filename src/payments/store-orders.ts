// What a payment asks of the store's orders: the port payments declares and the store implements
// (src/store/index.ts), so payments depends on no store module.
import type { Sql } from '../db/sql';
import type { StorePaymentMode } from '../entities';

/**
 * In the caller's transaction (`sql` first). The payment service and the settlement activities take it as
 * a narrow dependency (`Pick<StoreOrderPayments, 'markPaid'>`), wired in src/app.ts and worker/main.ts.
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
