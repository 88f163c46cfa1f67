import type { Sql } from '../db/sql';
import { FX_CURRENCIES, isFxCurrency, type DisplayCurrency } from '../lib/money';
import { latestRate, latestRates, type FxRate } from './repository';

/**
 * The rates in use: the latest snapshot per currency. A currency whose latest rate was fetched more
 * than FX_MAX_AGE ago is unsupported (spec "Gate and currencies"); USD never needs a rate.
 */
export interface FxRates {
  /** The latest snapshot of every currency that has one, whatever its age (GET /admin/settings/fx-rates). */
  latest(): Promise<FxRate[]>;
  /** The rate a display price uses: null for USD, undefined when the currency has no fresh rate. */
  rateFor(currency: DisplayCurrency): Promise<FxRate | null | undefined>;
  /** USD and every currency with a fresh rate, in the contract's order; and the newest rate's fetchedAt (any age), or null. */
  supported(): Promise<{ currencies: DisplayCurrency[]; ratesFetchedAt: Date | null }>;
}

export function createFxRates(deps: { db: Sql; clock: () => Date; maxAgeMs: number }): FxRates {
  const fresh = (rate: FxRate) => deps.clock().getTime() - rate.fetchedAt.getTime() <= deps.maxAgeMs;
  return {
    latest: () => latestRates(deps.db, FX_CURRENCIES),

    async rateFor(currency) {
      if (!isFxCurrency(currency)) return null;
      const rate = await latestRate(deps.db, currency);
      return rate && fresh(rate) ? rate : undefined;
    },

    async supported() {
      const rates = await latestRates(deps.db, FX_CURRENCIES);
      const freshOnes = new Set(rates.filter(fresh).map((r) => r.currency));
      const newest = rates.reduce<Date | null>((max, r) => (max === null || r.fetchedAt > max ? r.fetchedAt : max), null);
      const order: DisplayCurrency[] = ['USD', 'SAR', 'AED', 'EUR', 'GBP', 'EGP'];
      return { currencies: order.filter((c) => c === 'USD' || (isFxCurrency(c) && freshOnes.has(c))), ratesFetchedAt: newest };
    },
  };
}
