import type { PaymentMethod } from '../entities';
import type { Sql } from '../db/sql';
import { AppError } from '../http/errors';
import type { StoreOrderPayments } from './store-orders';

/**
 * The spec's payment-method table, in one place. Every payment route asks it
 * before a payment row exists; the eSIM store reuses it for its orders.
 *
 * | Method            | Local orders | eSIM store orders                            |
 * |-------------------|--------------|----------------------------------------------|
 * | local_debit       | allowed      | PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER 422   |
 * | card_scheme_1     | allowed      | allowed                                      |
 * | card_scheme_2     | allowed      | allowed                                      |
 * | generic_processor | allowed      | allowed                                      |
 * | wallet_token      | allowed      | allowed                                      |
 * | mobile_wallet     | allowed      | PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER 422   |
 *
 * A store order whose provider takes payment itself (mode `external`), or whose
 * mode is unknown, is refused with STORE_PROVIDER_PAYMENT_EXTERNAL 422 (fail
 * closed) whatever the method: that check comes first, which is why the spec
 * lists it on the mobile-wallet route too, where the method alone would be
 * refused for a store order.
 */
export type OrderKind = 'local' | 'store';
export type StoreProviderPaymentMode = 'internal' | 'external';

export interface MethodCheck {
  orderKind: OrderKind;
  method: PaymentMethod;
  /** Only meaningful for store orders; absent counts as `external` (fail closed). */
  storeProviderPaymentMode?: StoreProviderPaymentMode;
}

/** Local-rail methods: never offered for store orders (charged in USD through the card processor). */
export const LOCAL_ONLY_METHODS: readonly PaymentMethod[] = ['local_debit', 'mobile_wallet'];

export function assertMethodAllowed(check: MethodCheck): void {
  if (check.orderKind === 'local') return;
  if (check.storeProviderPaymentMode !== 'internal') throw new AppError('STORE_PROVIDER_PAYMENT_EXTERNAL');
  if (LOCAL_ONLY_METHODS.includes(check.method)) throw new AppError('PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER');
}

/** What the policy needs to know about an order. */
export interface OrderPaymentContext {
  orderKind: OrderKind;
  storeProviderPaymentMode?: StoreProviderPaymentMode;
}

/** The order columns the resolution reads (orders table). */
export interface OrderForPolicy {
  id: string;
  company_id: string | null;
}

/**
 * Which row of the method table an order falls under: a store order (esim-store spec, its `store_orders`
 * row shares the order's id) with its provider's payment mode, or a local order (consumer and company
 * orders alike). The store answers for its orders (`store`, its face).
 */
export async function resolveOrderPaymentContext(
  sql: Sql,
  order: OrderForPolicy,
  store: Pick<StoreOrderPayments, 'paymentModeOf'>,
): Promise<OrderPaymentContext> {
  const mode = await store.paymentModeOf(sql, order.id);
  return mode === undefined ? { orderKind: 'local' } : { orderKind: 'store', storeProviderPaymentMode: mode };
}
