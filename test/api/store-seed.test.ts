/**
 * The store's development stand-ins (spec "Development stand-ins (seeded on start, refused in
 * production)"): "Three mock providers and a mock FX source ... The seed is idempotent (re-running it
 * restores these rows: active flags, names and prices included)."
 */
import { loadConfig } from '../../src/config';
import { registerConfiguredProviders } from '../../src/store/registration';
import request from 'supertest';
import { createStoreApp, productId, providerId, seedStore } from '../helpers/store';
import type { TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createStoreApp();
});
afterAll(() => t?.close());

interface ProviderRow {
  slug: string;
  kind: string;
  payment_mode: string;
  supports_async: boolean;
  is_active: boolean;
  health_ok: boolean;
}

it('seeds the three providers of the contract table as esim_store operators rows, active and healthy', async () => {
  const rows = await t.db.query<ProviderRow>(
    `select slug, kind, payment_mode, supports_async, is_active, health_ok from operators where kind = 'esim_store' order by slug`,
  );
  expect(rows).toEqual([
    { slug: 'mock-store', kind: 'esim_store', payment_mode: 'internal', supports_async: true, is_active: true, health_ok: true },
    { slug: 'mock-store-external', kind: 'esim_store', payment_mode: 'external', supports_async: false, is_active: true, health_ok: true },
    { slug: 'mock-store-lite', kind: 'esim_store', payment_mode: 'internal', supports_async: false, is_active: true, health_ok: true },
  ]);
});

it('seeds the twelve SKUs as listed: countries, data, days, USD price in cents, active flag', async () => {
  const rows = await t.db.query<Record<string, unknown>>(
    `select o.slug, p.sku, p.countries, p.data_amount_mb, p.is_unlimited, p.validity_days, p.price_usd_cents::int as cents, p.is_active,
            p.requires_kyc
       from store_products p join operators o on o.id = p.provider_id order by p.sku`,
  );
  expect(rows.map((r) => [r.sku, r.slug, r.countries, r.data_amount_mb, r.validity_days, r.cents, r.is_active])).toEqual([
    ['EXT-SYNC-SA-1GB', 'mock-store-external', ['SA'], 1024, 7, 300, true],
    ['LITE-KYC-SA-5GB', 'mock-store-lite', ['SA'], 5120, 30, 1500, true],
    ['LITE-SYNC-SA-1GB', 'mock-store-lite', ['SA'], 1024, 7, 300, true],
    ['MOCK-ASYNC-EG-3GB', 'mock-store', ['EG'], 3072, 15, 900, true],
    ['MOCK-FAILONCE-GB-2GB', 'mock-store', ['GB'], 2048, 7, 600, true],
    ['MOCK-KYC-SA-10GB', 'mock-store', ['SA'], 10240, 30, 2000, true],
    ['MOCK-REJECT-US-1GB', 'mock-store', ['US'], 1024, 7, 500, true],
    ['MOCK-SYNC-AE-1GB', 'mock-store', ['AE'], 1024, 7, 450, true],
    ['MOCK-SYNC-CHEAP-100MB', 'mock-store', ['SA'], 100, 1, 40, true],
    ['MOCK-SYNC-GLOBAL-UNL', 'mock-store', ['AE', 'EG', 'GB', 'SA', 'US'], null, 10, 3900, true],
    ['MOCK-SYNC-OLD-1GB', 'mock-store', ['SA'], 1024, 7, 300, false],
    ['MOCK-SYNC-SA-5GB', 'mock-store', ['SA'], 5120, 30, 1200, true],
  ]);
  expect(rows.filter((r) => r.requires_kyc).map((r) => r.sku)).toEqual(['LITE-KYC-SA-5GB', 'MOCK-KYC-SA-10GB']);
  expect(rows.find((r) => r.sku === 'MOCK-SYNC-GLOBAL-UNL')).toMatchObject({ is_unlimited: true });
  // One row per (product, country) for browsing by country.
  const countries = await t.db.query<{ n: string }>(`select count(*) as n from store_product_countries`);
  expect(Number(countries[0].n)).toBe(16);
});

it('seeds the mock FX rates: SAR 3.75, AED 3.6725, EUR 0.92, GBP 0.79, EGP 48.50, source mock', async () => {
  const rows = await t.db.query<{ currency: string; rate: string; source: string }>(
    `select currency, trim_scale(rate_per_usd)::text as rate, source from fx_rate_snapshots order by currency`,
  );
  expect(rows).toEqual([
    { currency: 'AED', rate: '3.6725', source: 'mock' },
    { currency: 'EGP', rate: '48.5', source: 'mock' },
    { currency: 'EUR', rate: '0.92', source: 'mock' },
    { currency: 'GBP', rate: '0.79', source: 'mock' },
    { currency: 'SAR', rate: '3.75', source: 'mock' },
  ]);
});

it('is idempotent and restores the rows: active flags, names and prices, staff edits undone; no second set of rates', async () => {
  await t.db.query(`update operators set is_active = false, health_ok = false where id = $1`, [providerId('mock-store')]);
  await t.db.query(
    `update store_products set is_active = false, disabled_by_admin = true, name_en = 'Renamed', name_customized = true, price_usd_cents = 1
      where id = $1`,
    [productId('MOCK-SYNC-SA-5GB')],
  );
  await t.db.query(`update store_products set is_active = true where id = $1`, [productId('MOCK-SYNC-OLD-1GB')]);
  await seedStore(t);
  await seedStore(t);
  const [provider] = await t.db.query<{ is_active: boolean; health_ok: boolean }>(
    `select is_active, health_ok from operators where id = $1`,
    [providerId('mock-store')],
  );
  expect(provider).toEqual({ is_active: true, health_ok: true });
  const products = await t.db.query<Record<string, unknown>>(
    `select sku, name_en, price_usd_cents::int as cents, is_active, disabled_by_admin, name_customized from store_products
      where id = any($1::uuid[]) order by sku`,
    [[productId('MOCK-SYNC-SA-5GB'), productId('MOCK-SYNC-OLD-1GB')]],
  );
  expect(products).toEqual([
    {
      sku: 'MOCK-SYNC-OLD-1GB',
      name_en: 'Saudi Arabia 1 GB (old)',
      cents: 300,
      is_active: false,
      disabled_by_admin: false,
      name_customized: false,
    },
    {
      sku: 'MOCK-SYNC-SA-5GB',
      name_en: 'Saudi Arabia 5 GB',
      cents: 1200,
      is_active: true,
      disabled_by_admin: false,
      name_customized: false,
    },
  ]);
  expect(await t.db.query(`select 1 from store_products`)).toHaveLength(12);
  expect(await t.db.query(`select 1 from store_product_countries`)).toHaveLength(16);
  expect(await t.db.query(`select 1 from fx_rate_snapshots`)).toHaveLength(5);
});

it('never lists a store provider among the telecom operators (GET /operators)', async () => {
  const res = await request(t.app).get('/operators');
  expect(res.status).toBe(200);
  const slugs = (res.body as { data: Array<{ slug: string }> }).data.map((o) => o.slug);
  expect(slugs.some((s) => s.startsWith('mock-store'))).toBe(false);
});

describe('the HTTP partner’s provider row', () => {
  // The real plugin has no seed: its row is registered at the API's start, inactive until staff turn it on after a health check.
  it('is registered inactive and never checked when missing, once (re-running changes nothing); the mocks register nothing', async () => {
    const http = loadConfig({
      NODE_ENV: 'test',
      STORE_PROVIDER: 'http',
      STORE_HTTP_URL: 'https://partner.example.com',
      STORE_HTTP_CLIENT_ID: 'id',
      STORE_HTTP_CLIENT_SECRET: 'secret',
      STORE_HTTP_SLUG: 'partner-store',
    });
    expect(await registerConfiguredProviders(t.db.sql, loadConfig({ NODE_ENV: 'test' }), t.clock())).toEqual([]);
    expect(await registerConfiguredProviders(t.db.sql, http, t.clock())).toEqual(['partner-store']);
    expect(await registerConfiguredProviders(t.db.sql, http, t.clock())).toEqual([]);
    expect(
      await t.db.query(
        `select kind, name_en, is_active, payment_mode, supports_async, health_ok from operators where slug = 'partner-store'`,
      ),
    ).toEqual([
      { kind: 'esim_store', name_en: 'partner-store', is_active: false, payment_mode: 'internal', supports_async: true, health_ok: null },
    ]);
  });
});
