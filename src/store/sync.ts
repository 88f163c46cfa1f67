import type { StoreProductFields } from './product';
import type { ProviderProduct } from './providers/plugin';

/**
 * The catalog sync's rules (spec "Product": "upserted by (provider, sku); a SKU the provider no longer
 * lists becomes inactive, never deleted"), as a plan the repository applies in one transaction:
 *
 * - A listed SKU not stored yet is added, active.
 * - A listed SKU already stored takes the provider's fields (countries, data, validity, identity check,
 *   price; the names too unless staff renamed it) and becomes active again unless staff turned it off.
 *   It counts as updated when any of that changed.
 * - A stored SKU the provider no longer lists becomes inactive (deactivated, when it was active).
 * - A listed product that is not valid (no SKU, no name, a bad country, a price that is not whole
 *   cents …) is skipped and counted; a stored row of that SKU is left as it is.
 */

/** A listed product, checked and normalized (countries upper case, sorted, once; data null when unlimited). */
export type SyncedProduct = StoreProductFields;

/** A product as stored: what the sync compares against. */
export interface StoredProduct extends SyncedProduct {
  id: string;
  isActive: boolean;
  disabledByAdmin: boolean;
  nameCustomized: boolean;
}

export interface ProductUpdate extends SyncedProduct {
  id: string;
  isActive: boolean;
}

export interface SyncPlan {
  inserts: SyncedProduct[];
  /** Stored rows whose fields or active flag change. */
  updates: ProductUpdate[];
  /** Products whose per-country rows must be rewritten (new, or countries or price changed): ids of stored rows, SKUs of new ones. */
  countryRewrites: { ids: string[]; skus: string[] };
  /** Every SKU listed and valid: their syncedAt moves to this sync. */
  listedSkus: string[];
  /** Active rows no longer listed. */
  deactivateIds: string[];
  skipped: number;
}

const MAX_SKU = 100;
const MAX_NAME = 255;
const MAX_CENTS = 100_000_000_00; // USD 100 million: no eSIM costs that
const COUNTRY = /^[A-Za-z]{2}$/;

const printable = (s: string) => [...s].every((c) => c >= ' ' && c !== '\x7f');
const cleanText = (value: unknown, max: number): string | null => {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text.length >= 1 && [...text].length <= max && printable(text) ? text : null;
};
const wholeIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;

/** The product as the store keeps it, or null when the provider's entry is not usable. */
export function normalizeProduct(p: ProviderProduct): SyncedProduct | null {
  const sku = cleanText(p.sku, MAX_SKU);
  const nameEn = cleanText(p.nameEn, MAX_NAME);
  const nameAr = cleanText(p.nameAr, MAX_NAME) ?? nameEn;
  if (!sku || !nameEn || !nameAr || !Array.isArray(p.countries) || typeof p.isUnlimited !== 'boolean') return null;
  if (!p.countries.every((c) => typeof c === 'string' && COUNTRY.test(c))) return null;
  const countries = [...new Set(p.countries.map((c) => c.toUpperCase()))].sort();
  if (countries.length === 0) return null;
  const dataAmountMb = p.isUnlimited ? null : p.dataAmountMb;
  if (dataAmountMb !== null && !wholeIn(dataAmountMb, 1, 2_147_483_647)) return null;
  if (!wholeIn(p.validityDays, 1, 3650) || !wholeIn(p.priceUsdCents, 1, MAX_CENTS)) return null;
  return {
    sku,
    nameEn,
    nameAr,
    countries,
    dataAmountMb,
    isUnlimited: p.isUnlimited,
    validityDays: p.validityDays,
    requiresKyc: p.requiresKyc === true,
    priceUsdCents: p.priceUsdCents,
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

export function planSync(stored: readonly StoredProduct[], listed: readonly ProviderProduct[]): SyncPlan {
  const bySku = new Map(stored.map((row) => [row.sku, row]));
  const plan: SyncPlan = {
    inserts: [],
    updates: [],
    countryRewrites: { ids: [], skus: [] },
    listedSkus: [],
    deactivateIds: [],
    skipped: 0,
  };
  const seen = new Set<string>();
  for (const entry of listed) {
    const product = normalizeProduct(entry);
    if (!product || seen.has(product.sku)) {
      plan.skipped += 1;
      // A malformed entry still names its SKU: that row is not "no longer listed".
      if (typeof entry?.sku === 'string') seen.add(entry.sku.trim());
      continue;
    }
    seen.add(product.sku);
    plan.listedSkus.push(product.sku);
    const row = bySku.get(product.sku);
    if (!row) {
      plan.inserts.push(product);
      plan.countryRewrites.skus.push(product.sku);
      continue;
    }
    const next: ProductUpdate = {
      ...product,
      id: row.id,
      nameEn: row.nameCustomized ? row.nameEn : product.nameEn,
      nameAr: row.nameCustomized ? row.nameAr : product.nameAr,
      isActive: !row.disabledByAdmin,
    };
    const countriesOrPrice = !sameList(row.countries, next.countries) || row.priceUsdCents !== next.priceUsdCents;
    const changed =
      countriesOrPrice ||
      row.nameEn !== next.nameEn ||
      row.nameAr !== next.nameAr ||
      row.dataAmountMb !== next.dataAmountMb ||
      row.isUnlimited !== next.isUnlimited ||
      row.validityDays !== next.validityDays ||
      row.requiresKyc !== next.requiresKyc ||
      row.isActive !== next.isActive;
    if (changed) plan.updates.push(next);
    if (countriesOrPrice) plan.countryRewrites.ids.push(row.id);
  }
  for (const row of stored) {
    if (!seen.has(row.sku) && row.isActive) plan.deactivateIds.push(row.id);
  }
  return plan;
}
