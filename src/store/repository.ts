import { query, type Sql } from '../db/sql';
import type { StorePaymentMode } from '../entities';
import type { StoredProduct, SyncPlan, SyncedProduct } from './sync';

/**
 * The store's statements: provider rows (operators of kind esim_store), the catalog sync's writes,
 * the stand-ins' seed and staff edits of a product. Browsing and the admin lists are in reads.ts.
 */

// --- Providers --------------------------------------------------------------------------------

export interface StoreProviderRow {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  isActive: boolean;
  paymentMode: StorePaymentMode;
  supportsAsync: boolean;
  healthOk: boolean | null;
  healthCheckedAt: Date | null;
  healthDetail: string | null;
}

const PROVIDER_COLUMNS = `id, slug, name_en as "nameEn", name_ar as "nameAr", is_active as "isActive",
  coalesce(payment_mode, 'internal') as "paymentMode", supports_async as "supportsAsync", health_ok as "healthOk",
  health_checked_at as "healthCheckedAt", health_detail as "healthDetail"`;

const PROVIDERS = query('store.providers', `select ${PROVIDER_COLUMNS} from operators where kind = 'esim_store' order by slug, id`);

/** Every eSIM store provider row, by slug. */
export function listProviders(sql: Sql): Promise<StoreProviderRow[]> {
  return sql.rows<StoreProviderRow>(PROVIDERS);
}

const ACTIVE_PROVIDERS = query(
  'store.active-providers',
  `select ${PROVIDER_COLUMNS} from operators where kind = 'esim_store' and is_active order by slug, id`,
);

/** The active providers (the scheduled sync's list). */
export function listActiveProviders(sql: Sql): Promise<StoreProviderRow[]> {
  return sql.rows<StoreProviderRow>(ACTIVE_PROVIDERS);
}

const PROVIDER = query('store.provider', `select ${PROVIDER_COLUMNS} from operators where id = $1 and kind = 'esim_store'`);

/** An eSIM store provider row by id; a telecom operator's id is no provider. */
export function findProvider(sql: Sql, id: string): Promise<StoreProviderRow | undefined> {
  return sql.one<StoreProviderRow>(PROVIDER, [id]);
}

const LOCK_PROVIDER = query('store.lock-provider', `select id from operators where id = $1 and kind = 'esim_store' for update`);

/** Takes the provider row's lock: one sync (or toggle) of a provider at a time writes. */
export async function lockProvider(sql: Sql, id: string): Promise<boolean> {
  return (await sql.one(LOCK_PROVIDER, [id])) !== undefined;
}

const RECORD_HEALTH = query(
  'store.record-health',
  `update operators set health_ok = $2, health_checked_at = $3, health_detail = $4
    where id = $1 and kind = 'esim_store' returning ${PROVIDER_COLUMNS}`,
);

/** The verdict of a health check, as of `at`. */
export function recordHealth(
  sql: Sql,
  id: string,
  health: { ok: boolean; detail: string },
  at: Date,
): Promise<StoreProviderRow | undefined> {
  return sql.one<StoreProviderRow>(RECORD_HEALTH, [id, health.ok, at, health.detail.slice(0, 500)]);
}

const SET_ACTIVE = query(
  'store.set-provider-active',
  `update operators set is_active = $2, updated_at = $3 where id = $1 and kind = 'esim_store' returning ${PROVIDER_COLUMNS}`,
);

export function setProviderActive(sql: Sql, id: string, isActive: boolean, at: Date): Promise<StoreProviderRow | undefined> {
  return sql.one<StoreProviderRow>(SET_ACTIVE, [id, isActive, at]);
}

export interface NewProvider {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  paymentMode: StorePaymentMode;
  supportsAsync: boolean;
}

const REGISTER_PROVIDER = query(
  'store.register-provider',
  `insert into operators (id, slug, kind, name_en, name_ar, is_active, payment_mode, supports_async, created_at, updated_at)
   values ($1, $2, 'esim_store', $3, $4, false, $5, $6, $7, $7) on conflict (slug) do nothing`,
);

/** A configured provider's row, inactive and never checked, unless its slug exists (staff turn it on after a health check). */
export async function registerProvider(sql: Sql, p: NewProvider, now: Date): Promise<boolean> {
  return (await sql.exec(REGISTER_PROVIDER, [p.id, p.slug, p.nameEn, p.nameAr, p.paymentMode, p.supportsAsync, now])) > 0;
}

const SEED_PROVIDER = query(
  'store.seed-provider',
  `insert into operators (id, slug, kind, name_en, name_ar, is_active, payment_mode, supports_async, health_ok, health_checked_at,
                          health_detail, created_at, updated_at)
   values ($1, $2, 'esim_store', $3, $4, true, $5, $6, $7, $8, $9, $8, $8)
   on conflict (slug) do update set kind = 'esim_store', name_en = excluded.name_en, name_ar = excluded.name_ar, is_active = true,
     payment_mode = excluded.payment_mode, supports_async = excluded.supports_async, health_ok = excluded.health_ok,
     health_checked_at = excluded.health_checked_at, health_detail = excluded.health_detail, updated_at = excluded.updated_at
   returning id`,
);

/** A stand-in provider as the contract's table lists it, active and healthy (re-running restores it). Answers the row's id. */
export async function seedProvider(sql: Sql, p: NewProvider, health: { ok: boolean; detail: string }, now: Date): Promise<string> {
  const row = await sql.one<{ id: string }>(SEED_PROVIDER, [
    p.id,
    p.slug,
    p.nameEn,
    p.nameAr,
    p.paymentMode,
    p.supportsAsync,
    health.ok,
    now,
    health.detail,
  ]);
  return row!.id;
}

// --- Products: the catalog sync --------------------------------------------------------------

const STORED_PRODUCTS = query(
  'store.stored-products',
  `select id, sku, name_en as "nameEn", name_ar as "nameAr", countries, data_amount_mb as "dataAmountMb", is_unlimited as "isUnlimited",
          validity_days as "validityDays", requires_kyc as "requiresKyc", price_usd_cents::int8 as "priceUsdCents", is_active as "isActive",
          disabled_by_admin as "disabledByAdmin", name_customized as "nameCustomized"
     from store_products where provider_id = $1 for update`,
);

/** Every product of the provider, locked for the sync's transaction. */
export async function storedProducts(sql: Sql, providerId: string): Promise<StoredProduct[]> {
  const rows = await sql.rows<Omit<StoredProduct, 'priceUsdCents'> & { priceUsdCents: string }>(STORED_PRODUCTS, [providerId]);
  return rows.map((r) => ({ ...r, priceUsdCents: Number(r.priceUsdCents) }));
}

/** Parallel arrays of products for unnest(); countries travel as comma-joined text (unnest flattens 2-D arrays). */
function columns(products: readonly SyncedProduct[]) {
  return [
    products.map((p) => p.sku),
    products.map((p) => p.nameEn),
    products.map((p) => p.nameAr),
    products.map((p) => p.countries.join(',')),
    products.map((p) => p.dataAmountMb),
    products.map((p) => p.isUnlimited),
    products.map((p) => p.validityDays),
    products.map((p) => p.requiresKyc),
    products.map((p) => p.priceUsdCents),
  ];
}

const INSERT_PRODUCTS = query(
  'store.insert-products',
  `insert into store_products (provider_id, sku, name_en, name_ar, countries, data_amount_mb, is_unlimited, validity_days, requires_kyc,
                               price_usd_cents, is_active, synced_at, created_at, updated_at)
   select $1, u.sku, u.name_en, u.name_ar, string_to_array(u.countries, ','), u.data_mb, u.unlimited, u.days, u.kyc, u.cents, true, $2, $2, $2
     from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bool[], $9::int[], $10::bool[], $11::int8[])
          as u(sku, name_en, name_ar, countries, data_mb, unlimited, days, kyc, cents)`,
);

const UPDATE_PRODUCTS = query(
  'store.update-products',
  `update store_products p
      set name_en = u.name_en, name_ar = u.name_ar, countries = string_to_array(u.countries, ','), data_amount_mb = u.data_mb,
          is_unlimited = u.unlimited, validity_days = u.days, requires_kyc = u.kyc, price_usd_cents = u.cents, is_active = u.active,
          updated_at = $1
     from unnest($2::uuid[], $3::bool[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bool[], $10::int[], $11::bool[], $12::int8[])
          as u(id, active, sku, name_en, name_ar, countries, data_mb, unlimited, days, kyc, cents)
    where p.id = u.id`,
);

const TOUCH_LISTED = query(
  'store.touch-listed',
  `update store_products set synced_at = $2 where provider_id = $1 and sku = any($3::text[])`,
);

const DEACTIVATE = query(
  'store.deactivate-products',
  `update store_products set is_active = false, updated_at = $2 where id = any($1::uuid[])`,
);

const DELETE_COUNTRIES = query(
  'store.delete-product-countries',
  `delete from store_product_countries c using store_products p
    where c.product_id = p.id and p.provider_id = $1 and (p.id = any($2::uuid[]) or p.sku = any($3::text[]))`,
);

const INSERT_COUNTRIES = query(
  'store.insert-product-countries',
  `insert into store_product_countries (country, price_usd_cents, product_id)
   select unnest(p.countries), p.price_usd_cents, p.id
     from store_products p
    where p.provider_id = $1 and (p.id = any($2::uuid[]) or p.sku = any($3::text[]))`,
);

/** Applies a sync plan (src/store/sync.ts) to the provider's rows; the caller holds the provider's lock and its transaction. */
export async function applySyncPlan(sql: Sql, providerId: string, plan: SyncPlan, now: Date): Promise<void> {
  if (plan.inserts.length > 0) await sql.exec(INSERT_PRODUCTS, [providerId, now, ...columns(plan.inserts)]);
  if (plan.updates.length > 0) {
    await sql.exec(UPDATE_PRODUCTS, [now, plan.updates.map((u) => u.id), plan.updates.map((u) => u.isActive), ...columns(plan.updates)]);
  }
  if (plan.listedSkus.length > 0) await sql.exec(TOUCH_LISTED, [providerId, now, plan.listedSkus]);
  if (plan.deactivateIds.length > 0) await sql.exec(DEACTIVATE, [plan.deactivateIds, now]);
  const { ids, skus } = plan.countryRewrites;
  if (ids.length + skus.length > 0) {
    await sql.exec(DELETE_COUNTRIES, [providerId, ids, skus]);
    await sql.exec(INSERT_COUNTRIES, [providerId, ids, skus]);
  }
}

// --- Products: the stand-ins' seed -----------------------------------------------------------

export interface SeedProduct extends SyncedProduct {
  id: string;
  isActive: boolean;
}

const SEED_PRODUCT = query(
  'store.seed-product',
  `insert into store_products (id, provider_id, sku, name_en, name_ar, countries, data_amount_mb, is_unlimited, validity_days, requires_kyc,
                               price_usd_cents, is_active, disabled_by_admin, name_customized, synced_at, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, $10, $11, $12, false, false, $13, $13, $13)
   on conflict (provider_id, sku) do update set name_en = excluded.name_en, name_ar = excluded.name_ar, countries = excluded.countries,
     data_amount_mb = excluded.data_amount_mb, is_unlimited = excluded.is_unlimited, validity_days = excluded.validity_days,
     requires_kyc = excluded.requires_kyc, price_usd_cents = excluded.price_usd_cents, is_active = excluded.is_active,
     disabled_by_admin = false, name_customized = false, synced_at = excluded.synced_at, updated_at = excluded.updated_at
   returning id`,
);

/** A stand-in product exactly as listed (flags, names and price restored); its country rows rewritten. */
export async function seedProduct(sql: Sql, providerId: string, p: SeedProduct, now: Date): Promise<void> {
  const row = await sql.one<{ id: string }>(SEED_PRODUCT, [
    p.id,
    providerId,
    p.sku,
    p.nameEn,
    p.nameAr,
    p.countries,
    p.dataAmountMb,
    p.isUnlimited,
    p.validityDays,
    p.requiresKyc,
    p.priceUsdCents,
    p.isActive,
    now,
  ]);
  await sql.exec(DELETE_COUNTRIES, [providerId, [row!.id], []]);
  await sql.exec(INSERT_COUNTRIES, [providerId, [row!.id], []]);
}

// --- Products: staff edits --------------------------------------------------------------------

export interface ProductPatch {
  isActive?: boolean;
  nameEn?: string;
  nameAr?: string;
}

const LOCK_PRODUCT = query(
  'store.lock-product',
  `select is_active as "isActive", name_en as "nameEn", name_ar as "nameAr" from store_products where id = $1 for update`,
);

/** What staff may change of a product, locked for the caller's transaction; undefined when there is no such product. */
export function lockProduct(sql: Sql, id: string): Promise<Required<ProductPatch> | undefined> {
  return sql.one<Required<ProductPatch>>(LOCK_PRODUCT, [id]);
}

const PATCH_PRODUCT = query(
  'store.patch-product',
  `update store_products
      set is_active = coalesce($2, is_active),
          disabled_by_admin = coalesce(not $2, disabled_by_admin),
          name_en = coalesce($3, name_en),
          name_ar = coalesce($4, name_ar),
          name_customized = name_customized or $3::text is not null or $4::text is not null,
          updated_at = $5
    where id = $1
    returning id`,
);

/** Staff's change to a product; false when there is no such product. A rename sticks across syncs, so does turning it off. */
export async function patchProduct(sql: Sql, id: string, patch: ProductPatch, now: Date): Promise<boolean> {
  return (await sql.exec(PATCH_PRODUCT, [id, patch.isActive ?? null, patch.nameEn ?? null, patch.nameAr ?? null, now])) > 0;
}
