import { query, type Sql } from '../db/sql';
import type { StoreOrderStatus } from '../entities';
import type { Cursor } from '../http/pagination';
import type { ProductSnapshot } from './product';

/** Store orders as the routes show them (GET /store/orders*, GET /admin/store/orders). */
export interface StoreOrderRow {
  id: string;
  userId: string;
  providerSlug: string;
  status: StoreOrderStatus;
  productSnapshot: ProductSnapshot;
  /** bigint as text. */
  chargeUsdCents: string;
  displayCurrency: string;
  displayMinor: string;
  fx: { ratePerUsd: number; fetchedAt: string; source: string } | null;
  paymentId: string | null;
  profileEncrypted: string | null;
  failureReason: string | null;
  /** Text with the stored microseconds (the keyset cursor). */
  createdAtText: string;
  createdAt: Date;
  updatedAt: Date;
  issuedAt: Date | null;
}

const COLUMNS = `s.id, s.user_id as "userId", o.slug as "providerSlug", s.status, s.product_snapshot as "productSnapshot",
  s.charge_usd_cents as "chargeUsdCents", s.display_currency as "displayCurrency", s.display_minor as "displayMinor", s.fx,
  s.payment_id as "paymentId", s.profile_encrypted as "profileEncrypted", s.failure_reason as "failureReason",
  to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAtText",
  s.created_at as "createdAt", s.updated_at as "updatedAt", s.issued_at as "issuedAt"`;
const FROM = `store_orders s join operators o on o.id = s.provider_id`;

const OWN = query('store-orders.own', `select ${COLUMNS} from ${FROM} where s.id = $1 and s.user_id = $2`);

export function findOwnStoreOrder(sql: Sql, id: string, userId: string): Promise<StoreOrderRow | undefined> {
  return sql.one<StoreOrderRow>(OWN, [id, userId]);
}

const ONE = query('store-orders.one', `select ${COLUMNS} from ${FROM} where s.id = $1`);

export function findStoreOrder(sql: Sql, id: string): Promise<StoreOrderRow | undefined> {
  return sql.one<StoreOrderRow>(ONE, [id]);
}

// Newest first on store_orders_user_created_index; `$2::text is null` keeps one statement for every filter.
const OWN_PAGE = query(
  'store-orders.own-page',
  `select ${COLUMNS} from ${FROM}
    where s.user_id = $1 and ($2::text is null or s.status = $2)
      and ($3::timestamptz is null or (s.created_at, s.id) < ($3::timestamptz, $4::uuid))
    order by s.created_at desc, s.id desc limit $5`,
);

export function listOwnStoreOrders(
  sql: Sql,
  q: { userId: string; status?: string; after?: Cursor; limit: number },
): Promise<StoreOrderRow[]> {
  return sql.rows<StoreOrderRow>(OWN_PAGE, [q.userId, q.status ?? null, q.after?.createdAt ?? null, q.after?.id ?? null, q.limit]);
}

const ADMIN_PAGE = query(
  'store-orders.admin-page',
  `select ${COLUMNS} from ${FROM} where ($1::text is null or s.status = $1)
    order by s.created_at desc, s.id desc limit $2 offset $3`,
);
const ADMIN_COUNT = query(
  'store-orders.admin-count',
  `select count(*)::int as total from store_orders where ($1::text is null or status = $1)`,
);

export async function listStoreOrders(
  sql: Sql,
  q: { status?: string; limit: number; offset: number },
): Promise<{ rows: StoreOrderRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    sql.rows<StoreOrderRow>(ADMIN_PAGE, [q.status ?? null, q.limit, q.offset]),
    sql.one<{ total: number }>(ADMIN_COUNT, [q.status ?? null]),
  ]);
  return { rows, total: count?.total ?? 0 };
}
