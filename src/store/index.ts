import type { StoreOrderPayments } from '../payments/store-orders';
import { markStoreOrderPaid, storePaymentModeOf } from './order-repository';

/**
 * The store area's face for payments (issue 35, "one public face per area"): what a payment asks of the
 * store's orders (the port payments declares, src/payments/store-orders.ts), in the caller's transaction.
 * Its repositories stay its own; wired in src/app.ts and worker/main.ts.
 */
export const storeOrderPayments: StoreOrderPayments = { paymentModeOf: storePaymentModeOf, markPaid: markStoreOrderPaid };
