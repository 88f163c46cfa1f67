import { query, type Sql } from '../db/sql';
import type { StoreOrderStatus, StorePaymentMode } from '../entities';
import type { ProductSnapshot, StoreProductRow } from './product';

/**
 * The SQL of store orders (esim-store spec "Device acknowledgement", "Store order", "States"): the
 * order's creation with its `orders` row, the payment's side (the order's payment mode, paid), and the
 * workflow's transitions. The lists and the single reads are in order-reads.ts.
 */

// --- Device acknowledgements --------------------------------------------------------------------

export interface AcknowledgementRow {
  id: string;
  deviceModel: string;
  acknowledgedAt: Date;
}

const INSERT_ACK = query(
  'store-orders.insert-ack',
  `insert into store_device_acknowledgements (user_id, device_model, acknowledged_at) values ($1, $2, $3)
   returning id, device_model as "deviceModel", acknowledged_at as "acknowledgedAt"`,
);

export async function insertAcknowledgement(sql: Sql, a: { userId: string; deviceModel: string; now: Date }): Promise<AcknowledgementRow> {
  return (await sql.one<AcknowledgementRow>(INSERT_ACK, [a.userId, a.deviceModel, a.now]))!;
}

const OWN_ACK = query('store-orders.own-ack', `select id from store_device_acknowledgements where id = $1 and user_id = $2`);

/** Whether the acknowledgement exists and is the user's own. */
export async function ownsAcknowledgement(sql: Sql, id: string, userId: string): Promise<boolean> {
  return (await sql.one(OWN_ACK, [id, userId])) !== undefined;
}

// --- Creating an order ----------------------------------------------------------------------------

/** A product as ordering checks it, with its provider (any state of either). */
export interface OrderableProduct extends StoreProductRow {
  id: string;
  isActive: boolean;
  providerId: string;
  providerSlug: string;
  providerActive: boolean;
  providerHealthy: boolean;
  paymentMode: StorePaymentMode | null;
  supportsAsync: boolean;
}

const ORDERABLE = query(
  'store-orders.orderable-product',
  `select p.id, p.sku, p.name_en as "nameEn", p.name_ar as "nameAr", p.countries, p.data_amount_mb as "dataAmountMb",
          p.is_unlimited as "isUnlimited", p.validity_days as "validityDays", p.requires_kyc as "requiresKyc",
          p.price_usd_cents as "priceUsdCents", p.is_active as "isActive", o.id as "providerId", o.slug as "providerSlug",
          o.is_active as "providerActive", coalesce(o.health_ok, false) as "providerHealthy", o.payment_mode as "paymentMode",
          o.supports_async as "supportsAsync"
     from store_products p join operators o on o.id = p.provider_id and o.kind = 'esim_store'
    where p.id = $1`,
);

export async function findOrderableProduct(sql: Sql, productId: string): Promise<OrderableProduct | undefined> {
  return sql.one<OrderableProduct>(ORDERABLE, [productId]);
}

const INSERT_ORDER_ROW = query(
  'store-orders.insert-order-row',
  `insert into orders (user_id, company_id, status, total_halalas, currency, created_at, updated_at)
   values ($1, null, 'pending_payment', $2, 'USD', $3, $3) returning id`,
);

export interface NewStoreOrder {
  userId: string;
  productId: string;
  providerId: string;
  deviceAcknowledgementId: string;
  sku: string;
  productSnapshot: ProductSnapshot;
  chargeUsdCents: number;
  displayCurrency: string;
  displayMinor: number;
  fx: Record<string, unknown> | null;
  /** The request's Idempotency-Key, if any. */
  createKey: string | null;
  now: Date;
}

const INSERT_STORE_ORDER = query(
  'store-orders.insert',
  `insert into store_orders (id, user_id, product_id, provider_id, device_acknowledgement_id, sku, status, product_snapshot,
                             charge_usd_cents, display_currency, display_minor, fx, create_key, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, 'pending_payment', $7::jsonb, $8, $9, $10, $11::jsonb, $13, $12, $12)`,
);

/** The unique index a parallel repeat of a keyed create runs into. */
export const STORE_ORDER_CREATE_KEY_UNIQUE = 'store_orders_create_key_unique';

/** The order a buyer created with this Idempotency-Key, with what it was asked for. */
export interface KeyedStoreOrder {
  id: string;
  productId: string;
  deviceAcknowledgementId: string;
  displayCurrency: string;
}

const KEYED = query(
  'store-orders.keyed',
  `select id, product_id as "productId", device_acknowledgement_id as "deviceAcknowledgementId", display_currency as "displayCurrency"
     from store_orders where user_id = $1 and create_key = $2`,
);

export function findKeyedStoreOrder(sql: Sql, userId: string, key: string): Promise<KeyedStoreOrder | undefined> {
  return sql.one<KeyedStoreOrder>(KEYED, [userId, key]);
}

/**
 * The order row (total in US cents, currency USD: the payment routes charge it as it is) and the store
 * order with the same id, in the caller's transaction. Answers the id.
 */
export async function insertStoreOrder(sql: Sql, o: NewStoreOrder): Promise<string> {
  const { id } = (await sql.one<{ id: string }>(INSERT_ORDER_ROW, [o.userId, o.chargeUsdCents, o.now]))!;
  await sql.exec(INSERT_STORE_ORDER, [
    id,
    o.userId,
    o.productId,
    o.providerId,
    o.deviceAcknowledgementId,
    o.sku,
    JSON.stringify(o.productSnapshot),
    o.chargeUsdCents,
    o.displayCurrency,
    o.displayMinor,
    o.fx === null ? null : JSON.stringify(o.fx),
    o.now,
    o.createKey,
  ]);
  return id;
}

// --- The payment's side -------------------------------------------------------------------------

const PAYMENT_MODE = query(
  'store-orders.payment-mode',
  `select coalesce(o.payment_mode, 'external') as "paymentMode"
     from store_orders s join operators o on o.id = s.provider_id where s.id = $1`,
);

/** The payment mode of a store order's provider, or undefined when the order is no store order. */
export async function storePaymentModeOf(sql: Sql, orderId: string): Promise<StorePaymentMode | undefined> {
  return (await sql.one<{ paymentMode: StorePaymentMode }>(PAYMENT_MODE, [orderId]))?.paymentMode;
}

const MARK_PAID = query(
  'store-orders.mark-paid',
  `update store_orders set status = 'paid', payment_id = $2, updated_at = $3 where id = $1 and status = 'pending_payment' returning id`,
);
const IS_STORE_ORDER = query('store-orders.exists', `select id from store_orders where id = $1`);

/**
 * The payment completed its order (in the settlement's transaction): a store order waiting for payment
 * moves to `paid`. Answers the store order's id when the order is one (paid now or before), else null.
 */
export async function markStoreOrderPaid(sql: Sql, orderId: string, paymentId: string, now: Date): Promise<string | null> {
  if (await sql.one(MARK_PAID, [orderId, paymentId, now])) return orderId;
  return (await sql.one<{ id: string }>(IS_STORE_ORDER, [orderId]))?.id ?? null;
}

// --- The workflow's side --------------------------------------------------------------------------

/** A store order as its run reads it: never the profile. */
export interface RunStoreOrder {
  id: string;
  userId: string;
  status: StoreOrderStatus;
  sku: string;
  providerSlug: string;
  paymentId: string | null;
  /** The `orders` row's status. */
  orderStatus: string;
  deliverBy: Date | null;
  failureReason: string | null;
  /** Requeues from `failed` so far: the refund record of the next failure is this occurrence. */
  requeues: number;
}

const RUN_COLUMNS = `s.id, s.user_id as "userId", s.status, s.sku, o.slug as "providerSlug", s.payment_id as "paymentId",
  r.status as "orderStatus", s.deliver_by as "deliverBy", s.failure_reason as "failureReason", s.requeues`;
const RUN_FROM = `store_orders s join operators o on o.id = s.provider_id join orders r on r.id = s.id`;
const RUN_ORDER = query('store-orders.run-order', `select ${RUN_COLUMNS} from ${RUN_FROM} where s.id = $1`);
const LOCK_RUN_ORDER = query('store-orders.lock-run-order', `select ${RUN_COLUMNS} from ${RUN_FROM} where s.id = $1 for update of s, r`);

export async function findRunStoreOrder(sql: Sql, id: string): Promise<RunStoreOrder | undefined> {
  return sql.one<RunStoreOrder>(RUN_ORDER, [id]);
}

/** The store order and its orders row, locked (orders row with it: the payment's completion takes the orders row first). */
export async function lockRunStoreOrder(sql: Sql, id: string): Promise<RunStoreOrder | undefined> {
  return sql.one<RunStoreOrder>(LOCK_RUN_ORDER, [id]);
}

const SET_STATUS = query(
  'store-orders.set-status',
  `update store_orders set status = $2, updated_at = $3, failure_reason = $4,
          deliver_by = coalesce($5, deliver_by), requeues = requeues + $6
    where id = $1`,
);

export async function setStoreOrderStatus(
  sql: Sql,
  id: string,
  s: { status: StoreOrderStatus; now: Date; failureReason?: string | null; deliverBy?: Date | null; requeued?: boolean },
): Promise<void> {
  await sql.exec(SET_STATUS, [id, s.status, s.now, s.failureReason ?? null, s.deliverBy ?? null, s.requeued ? 1 : 0]);
}

const CANCEL_ORDER_ROW = query(
  'store-orders.cancel-order-row',
  `update orders set status = 'cancelled', updated_at = $2 where id = $1 and status = 'pending_payment'`,
);

/** The unpaid order row can no longer be paid (an expired store order). */
export async function cancelOrderRow(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.exec(CANCEL_ORDER_ROW, [id, now]);
}

const ISSUE = query(
  'store-orders.issue',
  `update store_orders set status = 'issued', profile_encrypted = $2, issued_at = $3, updated_at = $3, failure_reason = null
    where id = $1 and status in ('paid', 'provisioning', 'awaiting_provider') returning id`,
);

/**
 * Stores the profile and makes a paid order still going `issued`; false when it is not one (nothing changes:
 * `issued` is final, and an order that failed or expired is never issued).
 */
export async function issueStoreOrder(sql: Sql, id: string, profileEncrypted: string, now: Date): Promise<boolean> {
  return (await sql.one(ISSUE, [id, profileEncrypted, now])) !== undefined;
}

const BUYER_EMAIL = query(
  'store-orders.buyer-email',
  `select u.email_encrypted as "emailEncrypted" from store_orders s join users u on u.id = s.user_id where s.id = $1`,
);

/** The buyer's e-mail (encrypted), null when the account has none. */
export async function findBuyerEmail(sql: Sql, id: string): Promise<string | null> {
  return (await sql.one<{ emailEncrypted: string | null }>(BUYER_EMAIL, [id]))?.emailEncrypted ?? null;
}

const STATUS = query('store-orders.status', `select status from store_orders where id = $1`);

export async function findStoreOrderStatus(sql: Sql, id: string): Promise<StoreOrderStatus | undefined> {
  return (await sql.one<{ status: StoreOrderStatus }>(STATUS, [id]))?.status;
}

const BUYER_DELETED = query('store-orders.buyer-deleted', `select deletion_requested_at is not null as deleted from users where id = $1`);

/** Whether the buyer asked for the account's deletion (nothing may be issued to it from then on). */
export async function isBuyerDeleted(sql: Sql, userId: string): Promise<boolean> {
  return (await sql.one<{ deleted: boolean }>(BUYER_DELETED, [userId]))?.deleted ?? true;
}
