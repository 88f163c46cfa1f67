// The store's test fixtures: an app with the store gate on and the development stand-ins seeded
// (src/store/stand-ins.ts: three mock providers, twelve SKUs, the mock FX rates at the app's clock).
import { seedStoreStandIns } from '../../src/store/stand-ins';
import { MOCK_STORE_PROVIDERS, MOCK_STORE_SKUS } from '../../src/store/providers/mock-catalog';
import { createTestApp, type TestApp, type TestAppOptions } from './app';

export const STORE_ENV = { FEATURE_ESIM_STORE: 'true' };

/** The seeded id of a stand-in provider by slug, or of a product by SKU. */
export const providerId = (slug: string) => MOCK_STORE_PROVIDERS.find((p) => p.slug === slug)!.id;
export const productId = (sku: string) => MOCK_STORE_SKUS.find((s) => s.sku === sku)!.id;

/** The test app with the store on (unless `env` says otherwise) and its stand-ins seeded. */
export async function createStoreApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp({ ...opts, env: { ...STORE_ENV, ...opts.env } });
  await t.db.sql.transaction((tx) => seedStoreStandIns(tx, t.clock()));
  return t;
}

/** Seeds (or restores) the stand-ins on `t`'s database at its clock's time. */
export const seedStore = (t: TestApp) => t.db.sql.transaction((tx) => seedStoreStandIns(tx, t.clock()));
