/**
 * The catalog sync's plan (src/store/sync.ts). Spec "Product": "Products are synced from providers:
 * upserted by (provider, sku); a SKU the provider no longer lists becomes inactive, never deleted."
 */
import { normalizeProduct, planSync, type StoredProduct } from '../../src/store/sync';
import type { ProviderProduct } from '../../src/store/providers/plugin';

const listed = (sku: string, over: Partial<ProviderProduct> = {}): ProviderProduct => ({
  sku,
  nameEn: `${sku} en`,
  nameAr: `${sku} ar`,
  countries: ['sa'],
  dataAmountMb: 1024,
  isUnlimited: false,
  validityDays: 7,
  requiresKyc: false,
  priceUsdCents: 300,
  ...over,
});

const stored = (sku: string, over: Partial<StoredProduct> = {}): StoredProduct => ({
  id: `id-${sku}`,
  sku,
  nameEn: `${sku} en`,
  nameAr: `${sku} ar`,
  countries: ['SA'],
  dataAmountMb: 1024,
  isUnlimited: false,
  validityDays: 7,
  requiresKyc: false,
  priceUsdCents: 300,
  isActive: true,
  disabledByAdmin: false,
  nameCustomized: false,
  ...over,
});

describe('the sync plan', () => {
  it('adds new SKUs, updates changed ones, leaves unchanged ones, deactivates vanished active ones', () => {
    const plan = planSync(
      [stored('SAME'), stored('PRICE'), stored('GONE'), stored('GONE-ALREADY', { isActive: false })],
      [listed('SAME'), listed('PRICE', { priceUsdCents: 350 }), listed('NEW', { countries: ['us', 'AE', 'us'] })],
    );
    expect(plan.inserts.map((p) => [p.sku, p.countries])).toEqual([['NEW', ['AE', 'US']]]);
    expect(plan.updates.map((p) => [p.sku, p.priceUsdCents, p.isActive])).toEqual([['PRICE', 350, true]]);
    expect(plan.deactivateIds).toEqual(['id-GONE']);
    expect(plan.listedSkus).toEqual(['SAME', 'PRICE', 'NEW']);
    expect(plan.countryRewrites).toEqual({ ids: ['id-PRICE'], skus: ['NEW'] });
    expect(plan.skipped).toBe(0);
  });

  it('reactivates a SKU listed again, unless staff turned it off; keeps the names staff gave it', () => {
    const plan = planSync(
      [
        stored('BACK', { isActive: false }),
        stored('OFF', { isActive: false, disabledByAdmin: true }),
        stored('RENAMED', { nameEn: 'Staff name', nameCustomized: true }),
      ],
      [listed('BACK'), listed('OFF'), listed('RENAMED', { nameEn: 'Provider name' })],
    );
    expect(plan.updates.map((p) => [p.sku, p.isActive])).toEqual([['BACK', true]]);
    expect(plan.deactivateIds).toEqual([]);
  });

  it('skips entries that are not usable, and never deactivates a stored SKU listed in a malformed entry', () => {
    const plan = planSync(
      [stored('BROKEN')],
      [
        listed('BROKEN', { priceUsdCents: 12.5 }),
        listed('', {}),
        listed('X', { countries: ['SAU'] }),
        listed('Y', { validityDays: 0 }),
        listed('DUP'),
        listed('DUP', { priceUsdCents: 1 }),
      ],
    );
    expect(plan.skipped).toBe(5);
    expect(plan.deactivateIds).toEqual([]);
    expect(plan.inserts.map((p) => [p.sku, p.priceUsdCents])).toEqual([['DUP', 300]]);
  });

  it('normalizes: unlimited has no data amount, a missing Arabic name falls back to the English one', () => {
    expect(normalizeProduct(listed('U', { isUnlimited: true, dataAmountMb: 99, nameAr: '' }))).toMatchObject({
      dataAmountMb: null,
      isUnlimited: true,
      nameAr: 'U en',
    });
  });
});
