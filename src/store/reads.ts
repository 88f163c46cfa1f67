import { query, type Sql } from '../db/sql';
import { MAX_LIMIT } from '../http/pagination';
import type { StoreProductRow } from './product';

/**
 * The store's read models: the public catalog (GET /store/products, GET /store/products/:id) and the
 * admin lists. Browsing walks an index in (price, id) order: store_products_browse_index without a
 * country, the primary key of store_product_countries (country, price, id) with one, so a page reads
 * about `limit` rows whatever the catalog's size (bench/store.ts).
 */

/** A product on sale as the public routes read it: its fields but the SKU, and its provider's slug. */
export type ProductRow = { id: string; providerSlug: string } & Omit<StoreProductRow, 'sku'>;

const PRODUCT_COLUMNS = `p.id, o.slug as "providerSlug", p.name_en as "nameEn", p.name_ar as "nameAr", p.countries,
  p.data_amount_mb as "dataAmountMb", p.is_unlimited as "isUnlimited", p.validity_days as "validityDays",
  p.requires_kyc as "requiresKyc", p.price_usd_cents as "priceUsdCents"`;

/** The providers whose products are on sale: active, healthy at their last check, charged through us. */
const SELLING = `o.kind = 'esim_store' and o.is_active and o.health_ok and o.payment_mode = 'internal'`;

/**
 * A page in (price, id) order. The inner LIMIT is a constant (the largest page plus the look-ahead row),
 * the outer one the page's: with `limit $n` alone the planner costs a generic plan as if a tenth of the
 * matches were read, finds it dearer than a custom plan, and re-plans every execution (0.3 ms at 10,000
 * products, against 0.003 ms); with the constant inside, the generic plan is chosen and kept. Rows are
 * still pulled one at a time through the index: a page reads `$1` of them, never 101.
 */
const paged = (inner: string) => `select * from (${inner} limit ${MAX_LIMIT + 1}) page order by "priceUsdCents", id limit $1`;

const PAGE = query(
  'store.browse-page',
  paged(`select ${PRODUCT_COLUMNS}
     from store_products p join operators o on o.id = p.provider_id
    where p.is_active and ${SELLING}
    order by p.price_usd_cents, p.id`),
);
const PAGE_AFTER = query(
  'store.browse-page-after',
  paged(`select ${PRODUCT_COLUMNS}
     from store_products p join operators o on o.id = p.provider_id
    where p.is_active and ${SELLING} and (p.price_usd_cents, p.id) > ($2::int8, $3::uuid)
    order by p.price_usd_cents, p.id`),
);

/** By country, the page is walked on store_product_countries' key (country, price, id): its price and id are the product's. */
const COUNTRY_COLUMNS = PRODUCT_COLUMNS.replace('p.id,', 'c.product_id as id,').replace(
  'p.price_usd_cents as "priceUsdCents"',
  'c.price_usd_cents as "priceUsdCents"',
);
const COUNTRY_PAGE = query(
  'store.browse-country-page',
  paged(`select ${COUNTRY_COLUMNS}
     from store_product_countries c
     join store_products p on p.id = c.product_id
     join operators o on o.id = p.provider_id
    where c.country = $2 and p.is_active and ${SELLING}
    order by c.price_usd_cents, c.product_id`),
);
const COUNTRY_PAGE_AFTER = query(
  'store.browse-country-page-after',
  paged(`select ${COUNTRY_COLUMNS}
     from store_product_countries c
     join store_products p on p.id = c.product_id
     join operators o on o.id = p.provider_id
    where c.country = $2 and p.is_active and ${SELLING} and (c.price_usd_cents, c.product_id) > ($3::int8, $4::uuid)
    order by c.price_usd_cents, c.product_id`),
);

export interface BrowseFilter {
  country?: string;
  after?: { priceUsdCents: string; id: string };
  /** Rows to read: the page size plus one (to know whether there is more). */
  limit: number;
}

/** One page of products on sale, cheapest first (price in cents, then id), after the cursor's position. */
export function browseProducts(sql: Sql, filter: BrowseFilter): Promise<ProductRow[]> {
  const { country, after, limit } = filter;
  if (country) {
    return after
      ? sql.rows<ProductRow>(COUNTRY_PAGE_AFTER, [limit, country, after.priceUsdCents, after.id])
      : sql.rows<ProductRow>(COUNTRY_PAGE, [limit, country]);
  }
  return after ? sql.rows<ProductRow>(PAGE_AFTER, [limit, after.priceUsdCents, after.id]) : sql.rows<ProductRow>(PAGE, [limit]);
}

const ACTIVE_PRODUCT = query(
  'store.active-product',
  `select ${PRODUCT_COLUMNS} from store_products p join operators o on o.id = p.provider_id where p.id = $1 and p.is_active`,
);

/** An active product by id, whatever its provider's state (ordering answers for the provider), or undefined. */
export function findActiveProduct(sql: Sql, id: string): Promise<ProductRow | undefined> {
  return sql.one<ProductRow>(ACTIVE_PRODUCT, [id]);
}

// --- Administration ---------------------------------------------------------------------------------

export type AdminProductRow = ProductRow & Pick<StoreProductRow, 'sku'> & { isActive: boolean; syncedAt: Date };

export interface AdminProductFilter {
  providerId?: string;
  isActive?: boolean;
  /** An ILIKE pattern (src/db/like.ts), or undefined. */
  pattern?: string;
  limit: number;
  offset: number;
}

const ADMIN_FILTER = `($1::uuid is null or p.provider_id = $1)
   and ($2::boolean is null or p.is_active = $2)
   and ($3::text is null or p.sku ilike $3 or p.name_en ilike $3 or p.name_ar ilike $3)`;

const ADMIN_PRODUCTS = query(
  'store.admin-products',
  `select ${PRODUCT_COLUMNS}, p.sku, p.is_active as "isActive", p.synced_at as "syncedAt"
     from store_products p join operators o on o.id = p.provider_id
    where ${ADMIN_FILTER}
    order by o.slug, p.sku, p.id
    limit $4 offset $5`,
);
const ADMIN_PRODUCT_COUNT = query(
  'store.admin-products-count',
  `select count(*)::int as total from store_products p where ${ADMIN_FILTER}`,
);

/** Every product (any state, any provider) matching the filters, by provider slug and SKU; and how many match. */
export async function adminProducts(sql: Sql, f: AdminProductFilter): Promise<{ rows: AdminProductRow[]; total: number }> {
  const values = [f.providerId ?? null, f.isActive ?? null, f.pattern ?? null];
  const [rows, count] = await Promise.all([
    sql.rows<AdminProductRow>(ADMIN_PRODUCTS, [...values, f.limit, f.offset]),
    sql.one<{ total: number }>(ADMIN_PRODUCT_COUNT, values),
  ]);
  return { rows, total: count?.total ?? 0 };
}

const ADMIN_PRODUCT = query(
  'store.admin-product',
  `select ${PRODUCT_COLUMNS}, p.sku, p.is_active as "isActive", p.synced_at as "syncedAt"
     from store_products p join operators o on o.id = p.provider_id where p.id = $1`,
);

/** One product as staff see it, any state. */
export function adminProduct(sql: Sql, id: string): Promise<AdminProductRow | undefined> {
  return sql.one<AdminProductRow>(ADMIN_PRODUCT, [id]);
}
