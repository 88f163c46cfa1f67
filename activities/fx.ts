import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/sql';
import { appendSnapshots } from '../src/fx/repository';
import { FxSourceError, type FxSource } from '../src/fx/source';
import { FX_CURRENCIES } from '../src/lib/money';

export interface FxActivityDeps {
  db: Db;
  /** Where rates come from (src/fx, chosen by FX_SOURCE). */
  fxSource: FxSource;
  clock?: () => Date;
}

export function createFxActivities(deps: FxActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    /**
     * Asks the source, then appends one snapshot per currency it gave, all with one fetchedAt. Nothing is
     * written when the source fails: a malformed answer or a refusal is final for this run, a transient
     * failure is retried by the workflow's policy.
     */
    async fetchFxRates(): Promise<{ source: string; currencies: string[]; fetchedAt: string }> {
      let fetched;
      try {
        fetched = await deps.fxSource.fetchRates();
      } catch (err) {
        if (err instanceof FxSourceError && !err.retryable) throw ApplicationFailure.nonRetryable(err.message, 'FxSourceError');
        throw err;
      }
      const fetchedAt = clock();
      const rates = FX_CURRENCIES.flatMap((currency) => {
        const ratePerUsd = fetched.rates[currency];
        return ratePerUsd ? [{ currency, ratePerUsd }] : [];
      });
      await appendSnapshots(deps.db, rates, fetched.source, fetchedAt);
      return { source: fetched.source, currencies: rates.map((r) => r.currency), fetchedAt: fetchedAt.toISOString() };
    },
  };
}

export type FxActivities = ReturnType<typeof createFxActivities>;
