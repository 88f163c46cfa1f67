import type { Config } from '../config';
import type { Db } from '../db/sql';
import type { FxRates } from '../fx/rates';
import type { FxRate } from '../fx';
import { AppError } from '../http/errors';
import { DEFAULT_LIMIT } from '../http/pagination';
import { amountOf, displayMinor, isDisplayCurrency, rateNumber, type DisplayCurrency } from '../lib/money';
import { browseProducts, findActiveProduct, type ProductRow } from './reads';
import type { ProductAnswer } from './schemas';

/** A product as the public routes answer it (spec "Product"): the route schema's shape. */
export type ProductView = ProductAnswer;

/** The display currency and the rate it needs (null for USD). */
interface Display {
  currency: DisplayCurrency;
  rate: FxRate | null;
}

export function productView(row: ProductRow, display: Display): ProductView {
  const cents = Number(row.priceUsdCents);
  const { currency, rate } = display;
  return {
    id: row.id,
    providerSlug: row.providerSlug,
    nameEn: row.nameEn,
    nameAr: row.nameAr,
    countries: row.countries,
    dataAmountMb: row.isUnlimited ? null : row.dataAmountMb,
    isUnlimited: row.isUnlimited,
    validityDays: row.validityDays,
    requiresKyc: row.requiresKyc,
    price: { amount: amountOf(rate ? displayMinor(cents, rate.ratePerUsd) : cents), currency },
    priceUsd: { amount: amountOf(cents), currency: 'USD' },
    fx: rate ? { ratePerUsd: rateNumber(rate.ratePerUsd), fetchedAt: rate.fetchedAt.toISOString(), source: rate.source } : null,
  };
}

export interface ProductListInput {
  country?: string;
  currency?: string;
  cursor?: string;
  limit?: number;
}

/**
 * Browsing the store (spec "Public"): the status, the list and one product. Gate first (STORE_DISABLED),
 * then the currency (outside the list, or no rate within FX_MAX_AGE: STORE_CURRENCY_UNSUPPORTED).
 */
export function createStoreBrowse(deps: { db: Db; config: Pick<Config, 'FEATURE_ESIM_STORE'>; fx: FxRates }) {
  const gate = () => {
    if (!deps.config.FEATURE_ESIM_STORE) throw new AppError('STORE_DISABLED');
  };

  async function display(currency = 'USD'): Promise<Display> {
    if (!isDisplayCurrency(currency)) throw new AppError('STORE_CURRENCY_UNSUPPORTED');
    const rate = await deps.fx.rateFor(currency);
    if (rate === undefined) throw new AppError('STORE_CURRENCY_UNSUPPORTED');
    return { currency, rate };
  }

  return {
    /** Always available, gate off included. */
    async status() {
      const { currencies, ratesFetchedAt } = await deps.fx.supported();
      return { enabled: deps.config.FEATURE_ESIM_STORE, currencies, ratesFetchedAt: ratesFetchedAt?.toISOString() ?? null };
    },

    async list(input: ProductListInput) {
      gate();
      const shown = await display(input.currency);
      const limit = input.limit ?? DEFAULT_LIMIT;
      const [priceUsdCents, id] = input.cursor ? input.cursor.split('|') : [];
      const rows = await browseProducts(deps.db, {
        country: input.country,
        after: input.cursor ? { priceUsdCents, id: id.toLowerCase() } : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const last = page.at(-1);
      return {
        items: page.map((row) => productView(row, shown)),
        nextCursor: hasMore && last ? `${last.priceUsdCents}|${last.id}` : null,
        hasMore,
      };
    },

    async get(id: string, currency?: string) {
      gate();
      const row = await findActiveProduct(deps.db, id);
      if (!row) throw new AppError('STORE_PRODUCT_NOT_FOUND');
      return productView(row, await display(currency));
    },
  };
}

export type StoreBrowse = ReturnType<typeof createStoreBrowse>;
