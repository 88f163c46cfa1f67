import { defineEntity, p } from '@mikro-orm/core';

export const OPERATOR_KINDS = ['telecom', 'esim_store'] as const;
/** Who charges for an eSIM store provider's products: we (the card processor), or the provider itself (unsupported: fails closed). */
export const STORE_PAYMENT_MODES = ['internal', 'external'] as const;
export type StorePaymentMode = (typeof STORE_PAYMENT_MODES)[number];

/**
 * A telecom operator (or an eSIM store provider, `kind = esim_store`). Its
 * behaviour comes from the plugin registered under its slug; apiConfig and
 * apiBaseUrl are secrets never served.
 */
export const Operator = defineEntity({
  name: 'Operator',
  tableName: 'operators',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    slug: p.string().length(64).unique(),
    kind: p.enum(OPERATOR_KINDS).default('telecom'),
    nameEn: p.string().length(255),
    nameAr: p.string().length(255),
    logoUrl: p.string().length(1024).nullable(),
    isActive: p.boolean().default(true),
    apiBaseUrl: p.string().length(1024).nullable(),
    apiConfig: p.json<Record<string, unknown>>().nullable(),
    // --- eSIM store providers only (kind esim_store; src/store/): null or false on telecom rows. ---
    paymentMode: p.enum(STORE_PAYMENT_MODES).nullable(),
    /** The provider can complete an order later (pending, then its callback): identity-check products need it. */
    supportsAsync: p.boolean().default(false),
    /** The last health check's verdict (null: never checked, which counts as unhealthy), when and what it said. */
    healthOk: p.boolean().nullable(),
    healthCheckedAt: p.datetime().nullable(),
    healthDetail: p.string().length(500).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/** A sellable package. Prices are whole halalas (SAR × 100), integers end to end; SAR only in answers. */
export const Package = defineEntity({
  name: 'Package',
  tableName: 'packages',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    operator: () => p.manyToOne(Operator).mapToPk().index(),
    nameEn: p.string().length(255),
    nameAr: p.string().length(255),
    descriptionEn: p.text().nullable(),
    descriptionAr: p.text().nullable(),
    dataAmountMb: p.integer(),
    voiceMinutes: p.integer(),
    smsCount: p.integer(),
    validityDays: p.integer(),
    priceHalalas: p.bigint('number'),
    /** The business price; null: not in the B2B catalog. */
    priceB2bHalalas: p.bigint('number').nullable(),
    isActive: p.boolean().default(true),
    isPromotional: p.boolean().default(false),
    isNameCustomized: p.boolean().default(false),
    isPriceCustomized: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
