/**
 * The store's public routes (esim-store spec, "Public"): GET /store/status, GET /store/products and
 * GET /store/products/:id, against real Postgres with the development stand-ins seeded.
 */
import request from 'supertest';
import type { z } from 'zod';
import type { ProductList, ProductResponse, StoreStatusResponse } from '../../src/store/schemas';
import { createTestApp, errorCode, type TestApp } from '../helpers/app';
import { errorOf, typed } from '../helpers/responses';
import { createStoreApp, productId, providerId, seedStore } from '../helpers/store';

type List = z.infer<typeof ProductList>;
type One = z.infer<typeof ProductResponse>;
type Status = z.infer<typeof StoreStatusResponse>;

let t: TestApp;
let off: TestApp;
beforeAll(async () => {
  [t, off] = await Promise.all([createStoreApp(), createTestApp()]);
});
afterAll(async () => {
  await t?.close();
  await off?.close();
});
afterEach(() => seedStore(t));

const HOUR = 3_600_000;
const list = async (query: Record<string, string> = {}, app = t.app, lang = 'en') =>
  typed<List>(await request(app).get('/store/products').query(query).set('Accept-Language', lang));
const one = async (id: string, query: Record<string, string> = {}, app = t.app, lang = 'en') =>
  typed<One>(await request(app).get(`/store/products/${id}`).query(query).set('Accept-Language', lang));

/** Every item of every page, following nextCursor. */
async function allPages(query: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list({ ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    ids.push(...res.body.items.map((p) => p.id));
    pages += 1;
    cursor = res.body.nextCursor;
    expect(res.body.hasMore).toBe(cursor !== null);
  } while (cursor);
  return { ids, pages };
}

/** The visible stand-ins, cheapest first (then by id): mock-store and mock-store-lite, active SKUs only. */
const VISIBLE = [
  'MOCK-SYNC-CHEAP-100MB',
  'LITE-SYNC-SA-1GB',
  'MOCK-SYNC-AE-1GB',
  'MOCK-REJECT-US-1GB',
  'MOCK-FAILONCE-GB-2GB',
  'MOCK-ASYNC-EG-3GB',
  'MOCK-SYNC-SA-5GB',
  'LITE-KYC-SA-5GB',
  'MOCK-KYC-SA-10GB',
  'MOCK-SYNC-GLOBAL-UNL',
];

describe('GET /store/status', () => {
  it('answers enabled, USD and every currency with a fresh rate, and the newest rate’s fetchedAt', async () => {
    const res = typed<Status>(await request(t.app).get('/store/status'));
    expect([res.status, res.body]).toEqual([
      200,
      { data: { enabled: true, currencies: ['USD', 'SAR', 'AED', 'EUR', 'GBP', 'EGP'], ratesFetchedAt: t.clock().toISOString() } },
    ]);
  });

  it('drops a currency whose rate is older than FX_MAX_AGE (48 h); ratesFetchedAt stays the newest rate’s', async () => {
    const fresh = new Date(t.clock().getTime() - 47 * HOUR);
    await t.db.query(`update fx_rate_snapshots set fetched_at = $1`, [new Date(t.clock().getTime() - 49 * HOUR)]);
    await t.db.query(`update fx_rate_snapshots set fetched_at = $1 where currency in ('SAR', 'GBP')`, [fresh]);
    const res = typed<Status>(await request(t.app).get('/store/status'));
    expect(res.body.data).toEqual({ enabled: true, currencies: ['USD', 'SAR', 'GBP'], ratesFetchedAt: fresh.toISOString() });
    await t.db.query(`delete from fx_rate_snapshots`);
  });

  it('is always available: with the gate off it answers enabled false; with no rate ever fetched, USD and null', async () => {
    const res = typed<Status>(await request(off.app).get('/store/status'));
    expect([res.status, res.body]).toEqual([200, { data: { enabled: false, currencies: ['USD'], ratesFetchedAt: null } }]);
  });
});

describe('GET /store/products', () => {
  it('lists active products of active, healthy, internal providers, cheapest first, in USD', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.id)).toEqual(VISIBLE.map(productId));
    expect([res.body.nextCursor, res.body.hasMore]).toEqual([null, false]);
    // The Product resource, exactly.
    expect(res.body.items.find((p) => p.id === productId('MOCK-SYNC-GLOBAL-UNL'))).toEqual({
      id: productId('MOCK-SYNC-GLOBAL-UNL'),
      providerSlug: 'mock-store',
      nameEn: 'Global unlimited',
      nameAr: 'عالمي غير محدود',
      countries: ['AE', 'EG', 'GB', 'SA', 'US'],
      dataAmountMb: null,
      isUnlimited: true,
      validityDays: 10,
      requiresKyc: false,
      price: { amount: 39, currency: 'USD' },
      priceUsd: { amount: 39, currency: 'USD' },
      fx: null,
    });
    expect(res.body.items[0]).toMatchObject({ dataAmountMb: 100, isUnlimited: false, price: { amount: 0.4, currency: 'USD' } });
  });

  it('pages by keyset `<priceUsdMinor>|<id>`: limit 1-100 (default 20), every product once, ties by id', async () => {
    // A tie on price: LITE-SYNC-SA-1GB and MOCK-SYNC-AE-1GB both at 3.00.
    await t.db.query(`update store_products set price_usd_cents = 300 where id = $1`, [productId('MOCK-SYNC-AE-1GB')]);
    await t.db.query(`update store_product_countries set price_usd_cents = 300 where product_id = $1`, [productId('MOCK-SYNC-AE-1GB')]);
    const first = await list({ limit: '3' });
    expect(first.body.items).toHaveLength(3);
    const [, a, b] = first.body.items;
    expect([a.priceUsd.amount, b.priceUsd.amount]).toEqual([3, 3]);
    expect(a.id < b.id).toBe(true);
    expect(first.body).toMatchObject({ hasMore: true, nextCursor: `300|${b.id}` });
    const { ids, pages } = await allPages({ limit: '3' });
    expect(pages).toBe(4);
    expect(new Set(ids).size).toBe(10);
    const everything = await list({ limit: '100' });
    expect(ids).toEqual(everything.body.items.map((p) => p.id));
  });

  it('filters by country (alpha-2, either case): products that cover it', async () => {
    const sa = await list({ country: 'SA' });
    expect(sa.body.items.map((p) => p.id)).toEqual(
      ['MOCK-SYNC-CHEAP-100MB', 'LITE-SYNC-SA-1GB', 'MOCK-SYNC-SA-5GB', 'LITE-KYC-SA-5GB', 'MOCK-KYC-SA-10GB', 'MOCK-SYNC-GLOBAL-UNL'].map(
        productId,
      ),
    );
    expect((await list({ country: 'eg' })).body.items.map((p) => p.id)).toEqual(
      ['MOCK-ASYNC-EG-3GB', 'MOCK-SYNC-GLOBAL-UNL'].map(productId),
    );
    expect((await list({ country: 'ZZ' })).body).toEqual({ items: [], nextCursor: null, hasMore: false });
    const paged = await allPages({ country: 'SA', limit: '4' });
    expect(paged).toEqual({ ids: sa.body.items.map((p) => p.id), pages: 2 });
  });

  it('prices in the display currency: priceUsd × ratePerUsd, half-up to 2 decimals, with the rate used', async () => {
    const fetchedAt = t.clock().toISOString();
    const aed = await list({ currency: 'AED' });
    const item = aed.body.items.find((p) => p.id === productId('MOCK-SYNC-AE-1GB'))!;
    // 4.50 × 3.6725 = 16.52625 -> 16.53
    expect([item.price, item.priceUsd, item.fx]).toEqual([
      { amount: 16.53, currency: 'AED' },
      { amount: 4.5, currency: 'USD' },
      { ratePerUsd: 3.6725, fetchedAt, source: 'mock' },
    ]);
    const sar = await list({ currency: 'SAR', country: 'SA', limit: '1' });
    expect(sar.body.items[0].price).toEqual({ amount: 1.5, currency: 'SAR' });
    const egp = await list({ currency: 'EGP' });
    expect(egp.body.items.find((p) => p.id === productId('MOCK-SYNC-GLOBAL-UNL'))!.price).toEqual({ amount: 1891.5, currency: 'EGP' });
    const eur = await list({ currency: 'EUR' });
    expect(eur.body.items.find((p) => p.id === productId('MOCK-SYNC-SA-5GB'))!.price).toEqual({ amount: 11.04, currency: 'EUR' });
    expect((await list({ currency: 'USD' })).body.items[0].fx).toBeNull();
  });

  it('answers STORE_CURRENCY_UNSUPPORTED 400 for a currency outside the list or without a fresh rate (USD never needs one), both languages', async () => {
    for (const currency of ['JPY', 'sar', 'XXXX']) {
      const res = await list({ currency });
      expect([currency, res.status, errorCode(res)]).toEqual([currency, 400, 'STORE_CURRENCY_UNSUPPORTED']);
    }
    expect(errorOf(await list({ currency: 'JPY' })).message).toBe('This currency is not supported');
    expect(errorOf(await list({ currency: 'JPY' }, t.app, 'ar')).message).toBe('هذه العملة غير مدعومة');
    await t.db.query(`update fx_rate_snapshots set fetched_at = $1 where currency = 'GBP'`, [
      new Date(t.clock().getTime() - 48 * HOUR - 1000),
    ]);
    expect(errorCode(await list({ currency: 'GBP' }))).toBe('STORE_CURRENCY_UNSUPPORTED');
    await t.db.query(`delete from fx_rate_snapshots`);
    expect(errorCode(await list({ currency: 'SAR' }))).toBe('STORE_CURRENCY_UNSUPPORTED');
    expect((await list({ currency: 'USD' })).status).toBe(200);
  });

  it('hides products of an inactive, unhealthy or external provider, and inactive products', async () => {
    await t.db.query(`update operators set is_active = false where id = $1`, [providerId('mock-store-lite')]);
    await t.db.query(`update operators set health_ok = false where id = $1`, [providerId('mock-store')]);
    expect((await list()).body.items).toEqual([]);
    await seedStore(t);
    await t.db.query(`update operators set health_ok = null where id = $1`, [providerId('mock-store')]);
    expect((await list()).body.items.map((p) => p.providerSlug)).toEqual(['mock-store-lite', 'mock-store-lite']);
    await seedStore(t);
    // The external provider's product would sort among them at 3.00; it never shows. Nor does an inactive product.
    await t.db.query(`update store_products set is_active = false where id = $1`, [productId('MOCK-SYNC-CHEAP-100MB')]);
    const ids = (await list()).body.items.map((p) => p.id);
    expect(ids).not.toContain(productId('EXT-SYNC-SA-1GB'));
    expect(ids).not.toContain(productId('MOCK-SYNC-OLD-1GB'));
    expect(ids).not.toContain(productId('MOCK-SYNC-CHEAP-100MB'));
  });

  it('answers STORE_DISABLED 422 with the gate off, both languages', async () => {
    const en = await list({}, off.app);
    expect([en.status, errorCode(en), errorOf(en).message]).toEqual([422, 'STORE_DISABLED', 'The store is currently unavailable']);
    expect(errorOf(await list({}, off.app, 'ar')).message).toBe('المتجر غير متاح حالياً');
  });

  it.each([
    [{ limit: '0' }],
    [{ limit: '101' }],
    [{ limit: 'ten' }],
    [{ cursor: 'abc' }],
    [{ cursor: `12|not-a-uuid` }],
    [{ cursor: `-1|${productId('MOCK-SYNC-SA-5GB')}` }],
    [{ country: 'SAU' }],
    [{ country: 'S1' }],
    [{ sort: 'price' }],
  ])('answers VALIDATION_ERROR 400 for %j', async (query) => {
    const res = await list(query);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('takes a cursor past the end as an empty last page', async () => {
    expect((await list({ cursor: `999999999|${productId('MOCK-SYNC-SA-5GB')}` })).body).toEqual({
      items: [],
      nextCursor: null,
      hasMore: false,
    });
  });
});

describe('GET /store/products/:id', () => {
  it('answers the product in the requested currency', async () => {
    const res = await one(productId('MOCK-SYNC-SA-5GB'), { currency: 'SAR' });
    expect([res.status, res.body]).toEqual([
      200,
      {
        data: {
          id: productId('MOCK-SYNC-SA-5GB'),
          providerSlug: 'mock-store',
          nameEn: 'Saudi Arabia 5 GB',
          nameAr: 'السعودية 5 جيجابايت',
          countries: ['SA'],
          dataAmountMb: 5120,
          isUnlimited: false,
          validityDays: 30,
          requiresKyc: false,
          price: { amount: 45, currency: 'SAR' },
          priceUsd: { amount: 12, currency: 'USD' },
          fx: { ratePerUsd: 3.75, fetchedAt: t.clock().toISOString(), source: 'mock' },
        },
      },
    ]);
    expect((await one(productId('MOCK-KYC-SA-10GB'))).body.data).toMatchObject({
      requiresKyc: true,
      price: { amount: 20, currency: 'USD' },
      fx: null,
    });
  });

  it('shows an active product whatever its provider’s state (ordering answers for the provider)', async () => {
    expect((await one(productId('EXT-SYNC-SA-1GB'))).body.data.providerSlug).toBe('mock-store-external');
  });

  it('answers STORE_PRODUCT_NOT_FOUND 404 for a missing product or one hidden because inactive, both languages', async () => {
    for (const id of [productId('MOCK-SYNC-OLD-1GB'), '00000000-0000-4000-8000-000000000000']) {
      const res = await one(id);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'STORE_PRODUCT_NOT_FOUND', 'Product not found']);
    }
    expect(errorOf(await one(productId('MOCK-SYNC-OLD-1GB'), {}, t.app, 'ar')).message).toBe('لم يتم العثور على المنتج');
  });

  it('answers STORE_CURRENCY_UNSUPPORTED 400, VALIDATION_ERROR 400 for a malformed id or query, STORE_DISABLED 422 with the gate off', async () => {
    expect(errorCode(await one(productId('MOCK-SYNC-SA-5GB'), { currency: 'CHF' }))).toBe('STORE_CURRENCY_UNSUPPORTED');
    const bad = await one('not-a-uuid');
    expect([bad.status, errorCode(bad)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorCode(await one(productId('MOCK-SYNC-SA-5GB'), { country: 'SA' }))).toBe('VALIDATION_ERROR');
    const gated = await one(productId('MOCK-SYNC-SA-5GB'), {}, off.app, 'ar');
    expect([gated.status, errorCode(gated), errorOf(gated).message]).toEqual([422, 'STORE_DISABLED', 'المتجر غير متاح حالياً']);
  });
});
