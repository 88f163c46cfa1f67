import type { Sql } from '../db/sql';
import { MOCK_FX_RATES, MOCK_FX_SOURCE } from '../fx/mock';
import { appendSnapshots, latestRates } from '../fx';
import { FX_CURRENCIES } from '../lib/money';
import { MOCK_STORE_PROVIDERS, MOCK_STORE_SKUS } from './providers/mock-catalog';
import { seedProduct, seedProvider } from './repository';

/**
 * Seeds the store's development stand-ins (spec "Development stand-ins"): the three mock providers
 * (active, healthy as the mock answers), their twelve SKUs exactly as the table lists them, and the
 * mock FX rates. Idempotent: running it again restores these rows, active flags, names and prices
 * included; rates are appended only when a currency's latest snapshot is not already the mock's,
 * fetched within the hour. The local stack runs it on start (src/cli/prepare-database.ts), tests
 * through test/helpers/store.ts. Never in production (the mocks are refused there with the store on).
 */
export async function seedStoreStandIns(sql: Sql, now = new Date()): Promise<void> {
  const ids = new Map<string, string>();
  for (const provider of MOCK_STORE_PROVIDERS) {
    ids.set(provider.slug, await seedProvider(sql, provider, { ok: true, detail: 'mock provider: healthy' }, now));
  }
  for (const sku of MOCK_STORE_SKUS) {
    await seedProduct(
      sql,
      ids.get(sku.providerSlug)!,
      {
        id: sku.id,
        sku: sku.sku,
        nameEn: sku.nameEn,
        nameAr: sku.nameAr,
        countries: [...sku.countries].sort(),
        dataAmountMb: sku.dataAmountMb,
        isUnlimited: sku.dataAmountMb === null,
        validityDays: sku.validityDays,
        requiresKyc: sku.requiresKyc,
        priceUsdCents: sku.priceUsdCents,
        isActive: sku.listed,
      },
      now,
    );
  }
  await seedMockRates(sql, now);
}

const HOUR_MS = 3_600_000;

/** The mock FX rates as a fetch at `now`, for each currency whose latest snapshot is not already the mock's from the last hour. */
export async function seedMockRates(sql: Sql, now = new Date()): Promise<void> {
  const latest = new Map((await latestRates(sql, FX_CURRENCIES)).map((r) => [r.currency, r]));
  const due = FX_CURRENCIES.filter((currency) => {
    const last = latest.get(currency);
    return !(
      last &&
      last.source === MOCK_FX_SOURCE &&
      Number(last.ratePerUsd) === Number(MOCK_FX_RATES[currency]) &&
      now.getTime() - last.fetchedAt.getTime() < HOUR_MS &&
      last.fetchedAt.getTime() <= now.getTime()
    );
  });
  await appendSnapshots(
    sql,
    due.map((currency) => ({ currency, ratePerUsd: MOCK_FX_RATES[currency] })),
    MOCK_FX_SOURCE,
    now,
  );
}
