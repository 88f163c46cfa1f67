import { defineEntity, p } from '@mikro-orm/core';
import { Operator } from './catalog';
import { Order } from './order';
import { User } from './user';

/**
 * A product of an eSIM store provider (an `operators` row of kind `esim_store`), synced from the
 * provider's catalog by (provider, sku): upserted, never deleted; a SKU the provider stops listing
 * becomes inactive (src/store/sync.ts). Money in integer minor units (US cents).
 *
 * `isActive` is what the store shows; `disabledByAdmin` remembers that staff turned the product off
 * (PATCH /admin/store/products/:id), so a sync that still finds it listed keeps it off, and
 * `nameCustomized` that staff renamed it, so a sync keeps the staff's names.
 */
export const StoreProduct = defineEntity({
  name: 'StoreProduct',
  tableName: 'store_products',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    provider: () => p.manyToOne(Operator).mapToPk(),
    sku: p.string().length(100),
    nameEn: p.string().length(255),
    nameAr: p.string().length(255),
    /** ISO 3166-1 alpha-2 codes, upper case, sorted, each once. */
    countries: p.array(),
    /** Null when isUnlimited. */
    dataAmountMb: p.integer().nullable(),
    isUnlimited: p.boolean(),
    validityDays: p.integer(),
    requiresKyc: p.boolean().default(false),
    /** What is charged, in US cents. */
    priceUsdCents: p.bigint('number'),
    isActive: p.boolean(),
    disabledByAdmin: p.boolean().default(false),
    nameCustomized: p.boolean().default(false),
    /** The last sync (or seed) that found the SKU listed by its provider. */
    syncedAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ name: 'store_products_provider_sku_unique', properties: ['provider', 'sku'] }],
  indexes: [
    // GET /store/products without a country: active products, cheapest first, keyset (price, id).
    {
      name: 'store_products_browse_index',
      expression: 'create index "store_products_browse_index" on "store_products" ("price_usd_cents", "id") where "is_active"',
    },
  ],
});

/**
 * One row per (product, country) with the product's price, kept by the catalog sync in the same
 * transaction as the product: GET /store/products?country= walks the primary key (country, price, id)
 * in order, so a page reads ~limit rows whatever the catalog's size.
 */
export const StoreProductCountry = defineEntity({
  name: 'StoreProductCountry',
  tableName: 'store_product_countries',
  properties: {
    country: p.string().length(2).primary(),
    priceUsdCents: p.bigint('number').primary(),
    product: () => p.manyToOne(StoreProduct).mapToPk().primary().deleteRule('cascade').index('store_product_countries_product_index'),
  },
});

/**
 * An exchange rate as one fetch of the FX schedule saw it (src/fx/): appended, never updated, so the
 * rate a price was shown with stays known. The latest per currency is the rate in use.
 */
export const FxRateSnapshot = defineEntity({
  name: 'FxRateSnapshot',
  tableName: 'fx_rate_snapshots',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    currency: p.string().length(3),
    /** Units of the currency per US dollar, exact (read as text). */
    ratePerUsd: p.decimal('string').precision(20).scale(10),
    source: p.string().length(100),
    fetchedAt: p.datetime(),
  },
  indexes: [
    {
      name: 'fx_rate_snapshots_latest_index',
      expression: 'create index "fx_rate_snapshots_latest_index" on "fx_rate_snapshots" ("currency", "fetched_at" desc)',
    },
  ],
});

/**
 * A buyer's confirmation that a device supports eSIM and is carrier-unlocked (POST
 * /store/device-acknowledgements). A store order names one of its buyer's own.
 */
export const StoreDeviceAcknowledgement = defineEntity({
  name: 'StoreDeviceAcknowledgement',
  tableName: 'store_device_acknowledgements',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    user: () => p.manyToOne(User).mapToPk().index('store_device_acknowledgements_user_index'),
    deviceModel: p.string().length(100),
    acknowledgedAt: p.datetime(),
  },
});

/** esim-store spec "States". */
export const STORE_ORDER_STATUSES = [
  'pending_payment',
  'paid',
  'provisioning',
  'awaiting_provider',
  'issued',
  'failed',
  'expired',
] as const;
export type StoreOrderStatus = (typeof STORE_ORDER_STATUSES)[number];

/**
 * An eSIM store order. Its id is also its `orders` row's (the orderId the payment routes take, total in
 * US cents, currency USD) and the reference given to the provider. The product is copied at order time;
 * the issued profile is stored encrypted (the activation code is a credential), never in clear.
 */
export const StoreOrder = defineEntity({
  name: 'StoreOrder',
  tableName: 'store_orders',
  properties: {
    id: () => p.oneToOne(Order).primary().mapToPk().fieldName('id').deleteRule('cascade'),
    user: () => p.manyToOne(User).mapToPk(),
    product: () => p.manyToOne(StoreProduct).mapToPk(),
    provider: () => p.manyToOne(Operator).mapToPk(),
    deviceAcknowledgement: () => p.manyToOne(StoreDeviceAcknowledgement).mapToPk(),
    sku: p.string().length(100),
    status: p.enum(STORE_ORDER_STATUSES),
    /** productId, nameEn, nameAr, countries, dataAmountMb, isUnlimited, validityDays as ordered. */
    productSnapshot: p.json(),
    chargeUsdCents: p.bigint('number'),
    displayCurrency: p.string().length(3),
    /** Minor units of displayCurrency. */
    displayMinor: p.bigint('number'),
    /** `{ ratePerUsd, fetchedAt, source }` used for display, or null for USD. */
    fx: p.json().nullable(),
    paymentId: p.uuid().nullable(),
    /** The issued profile (iccid, smdpAddress, matchingId, activationCodeRaw), JSON encrypted with the personal-data cipher. */
    profileEncrypted: p.text().nullable(),
    failureReason: p.string().length(255).nullable(),
    /** When the order must be issued by (paid, or requeued, plus STORE_DELIVERY_DEADLINE). */
    deliverBy: p.datetime().nullable(),
    requeues: p.integer().default(0),
    /** The create's Idempotency-Key, if the buyer's client sent one: a repeat answers this order. */
    createKey: p.string().length(128).nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    issuedAt: p.datetime().nullable(),
  },
  indexes: [
    // GET /store/orders: the buyer's orders newest first, keyset (createdAt, id).
    {
      name: 'store_orders_user_created_index',
      expression: 'create index "store_orders_user_created_index" on "store_orders" ("user_id", "created_at" desc, "id" desc)',
    },
    { name: 'store_orders_status_created_index', properties: ['status', 'createdAt'] },
  ],
  uniques: [{ name: 'store_orders_create_key_unique', properties: ['user', 'createKey'], where: 'create_key is not null' }],
});
