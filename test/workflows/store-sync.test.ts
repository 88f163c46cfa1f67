/**
 * The catalog sync workflow (issue 24, time-skipping server) with the real activities on a real
 * database seeded with the stand-ins: "It upserts by (provider, sku), deactivates vanished SKUs, never
 * deletes, records syncedAt, and reports added/updated/deactivated counts in its result", one at a time
 * per provider ("a second request returns the running one").
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { createStoreSyncRuns } from '../../src/store/runs-temporal';
import { MOCK_STORE_SKUS } from '../../src/store/providers/mock-catalog';
import { createMockStoreProvider } from '../../src/store/providers/mock';
import {
  StoreProviderRegistry,
  StoreProviderRejection,
  StoreProviderUnavailable,
  type ProviderProduct,
  type StoreProviderPlugin,
} from '../../src/store/providers/plugin';
import { storeCatalogSyncAllWorkflow, storeCatalogSyncWorkflow } from '../../workflows/store-sync';
import { storeSyncWorkflowId, type StoreSyncAllResult, type StoreSyncResult } from '../../workflows/contracts/store-sync-contract';
import type { TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp, productId, providerId, seedStore } from '../helpers/store';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(90_000);

const MOCK_STORE = providerId('mock-store');

/** What the fake `mock-store` does next: its listing, failures to throw first, a refusal, a health verdict, a gate to hold the listing at. */
const behaviour: {
  products: ProviderProduct[];
  failures: number;
  reject: boolean;
  healthy: boolean;
  hold?: Promise<void>;
  listings: number;
} = { products: [], failures: 0, reject: false, healthy: true, listings: 0 };

const real = createMockStoreProvider('mock-store');
const fake: StoreProviderPlugin = {
  ...real,
  slug: 'mock-store',
  health: () =>
    Promise.resolve(behaviour.healthy ? { ok: true, detail: 'fake: healthy' } : { ok: false, detail: 'fake: down for maintenance' }),
  async listProducts() {
    behaviour.listings += 1;
    if (behaviour.hold) await behaviour.hold;
    if (behaviour.reject) throw new StoreProviderRejection('fake: account suspended');
    if (behaviour.failures > 0) {
      behaviour.failures -= 1;
      throw new StoreProviderUnavailable('fake: HTTP 503');
    }
    return behaviour.products.map((p) => ({ ...p, countries: [...p.countries] }));
  },
};

let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: RunningTestWorker;

beforeAll(async () => {
  const [e, bundle, app] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('../../workflows')),
    createStoreApp(),
  ]);
  [env, t] = [e, app];
  const registry = new StoreProviderRegistry([
    fake,
    createMockStoreProvider('mock-store-lite'),
    createMockStoreProvider('mock-store-external'),
  ]);
  worker = await runTestWorker(env, {
    taskQueue: uniqueTaskQueue('store-sync'),
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config, { clock: t.clock, storeProviders: registry }),
  });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

/** The mock-store catalog as seeded (the eight listed SKUs). */
const seededListing = async () => (await real.listProducts()).map((p) => ({ ...p }));

beforeEach(async () => {
  // Back to the stand-ins exactly: rows a test added go, the seed restores the rest.
  await t.db.query(`delete from store_products where not (sku = any($1::text[]))`, [MOCK_STORE_SKUS.map((s) => s.sku)]);
  await seedStore(t);
  behaviour.products = await seededListing();
  behaviour.failures = 0;
  behaviour.reject = false;
  behaviour.healthy = true;
  behaviour.hold = undefined;
  behaviour.listings = 0;
});

const sync = (providerIdToSync = MOCK_STORE) =>
  env.client.workflow.execute(storeCatalogSyncWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: storeSyncWorkflowId(providerIdToSync),
    args: [{ providerId: providerIdToSync }],
  });

interface Row {
  sku: string;
  is_active: boolean;
  cents: number;
  synced_at: Date;
}
const rows = async () =>
  t.db.query<Row>(
    `select sku, is_active, price_usd_cents::int as cents, synced_at from store_products where provider_id = $1 order by sku`,
    [MOCK_STORE],
  );

it('adds, updates and deactivates by (provider, sku), never deletes, records syncedAt, and reports the counts', async () => {
  const seededAt = t.clock();
  t.clock.advance(3_600_000);
  behaviour.products = [
    ...behaviour.products
      .filter((p) => p.sku !== 'MOCK-SYNC-AE-1GB')
      .map((p) => (p.sku === 'MOCK-SYNC-SA-5GB' ? { ...p, priceUsdCents: 1350, countries: ['SA', 'BH'] } : p)),
    {
      ...behaviour.products[0],
      sku: 'MOCK-NEW-BH-2GB',
      nameEn: 'Bahrain 2 GB',
      nameAr: 'البحرين 2 جيجابايت',
      countries: ['bh'],
      priceUsdCents: 700,
    },
  ];

  const result = await sync();
  expect(result).toEqual<StoreSyncResult>({
    status: 'synced',
    providerId: MOCK_STORE,
    slug: 'mock-store',
    added: 1,
    updated: 1,
    deactivated: 1,
    skipped: 0,
    syncedAt: t.clock().toISOString(),
  });

  const after = await rows();
  // Nothing deleted: the nine seeded rows and the new one.
  expect(after).toHaveLength(10);
  const bySku = new Map(after.map((r) => [r.sku, r]));
  expect(bySku.get('MOCK-SYNC-AE-1GB')).toMatchObject({ is_active: false });
  expect(bySku.get('MOCK-SYNC-AE-1GB')!.synced_at).toEqual(seededAt);
  expect(bySku.get('MOCK-SYNC-SA-5GB')).toMatchObject({ is_active: true, cents: 1350, synced_at: t.clock() });
  expect(bySku.get('MOCK-NEW-BH-2GB')).toMatchObject({ is_active: true, cents: 700, synced_at: t.clock() });
  // Unchanged, still listed: syncedAt moves. No longer listed before, still not: stays inactive, uncounted.
  expect(bySku.get('MOCK-SYNC-GLOBAL-UNL')).toMatchObject({ is_active: true, synced_at: t.clock() });
  expect(bySku.get('MOCK-SYNC-OLD-1GB')).toMatchObject({ is_active: false });
  // Its browsing rows follow: Bahrain now lists both, at their new prices.
  expect(
    await t.db.query(
      `select country, price_usd_cents::int as cents, product_id from store_product_countries where country = 'BH' order by 2`,
    ),
  ).toEqual([
    { country: 'BH', cents: 700, product_id: expect.any(String) as unknown },
    { country: 'BH', cents: 1350, product_id: productId('MOCK-SYNC-SA-5GB') },
  ]);
  expect(await t.db.query(`select 1 from store_product_countries where product_id = $1`, [productId('MOCK-SYNC-AE-1GB')])).toHaveLength(1);

  // The same listing again changes nothing; the vanished SKU listed again comes back.
  expect(await sync()).toMatchObject({ added: 0, updated: 0, deactivated: 0 });
  behaviour.products.push((await seededListing()).find((p) => p.sku === 'MOCK-SYNC-AE-1GB')!);
  expect(await sync()).toMatchObject({ added: 0, updated: 1, deactivated: 0 });
  expect((await rows()).find((r) => r.sku === 'MOCK-SYNC-AE-1GB')).toMatchObject({ is_active: true });
});

it('checks health first and records it; an unhealthy provider’s catalog is left as it is', async () => {
  behaviour.healthy = false;
  behaviour.products = [];
  const before = await rows();
  expect(await sync()).toEqual({ status: 'unhealthy', providerId: MOCK_STORE, slug: 'mock-store', detail: 'fake: down for maintenance' });
  expect(await rows()).toEqual(before);
  expect(behaviour.listings).toBe(0);
  expect(await t.db.query(`select health_ok, health_checked_at, health_detail from operators where id = $1`, [MOCK_STORE])).toEqual([
    { health_ok: false, health_checked_at: t.clock(), health_detail: 'fake: down for maintenance' },
  ]);
});

it('retries a listing that fails for a while (timers skipped), then syncs', async () => {
  behaviour.failures = 3;
  behaviour.products = behaviour.products.filter((p) => p.sku !== 'MOCK-SYNC-CHEAP-100MB');
  expect(await sync()).toMatchObject({ status: 'synced', deactivated: 1 });
  expect(behaviour.listings).toBe(4);
});

it('fails the run on a refusal, writing nothing', async () => {
  behaviour.reject = true;
  behaviour.products = [];
  const before = await rows();
  const err = (await sync().catch((e: unknown) => e)) as WorkflowFailedError;
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err.cause?.cause as Error | undefined)?.message).toBe('fake: account suspended');
  expect(behaviour.listings).toBe(1);
  expect(await rows()).toEqual(before);
});

it('answers not_found for an id that is no eSIM store provider (a telecom operator’s included)', async () => {
  const [telecom] = await t.db.query<{ id: string }>(
    `insert into operators (slug, kind, name_en, name_ar, created_at, updated_at) values ('tel-x', 'telecom', 'T', 'ت', now(), now()) returning id`,
  );
  expect(await sync(telecom.id)).toEqual({ status: 'not_found', providerId: telecom.id });
});

it('syncs every active provider, each in its own store-sync:<providerId> run', async () => {
  await t.db.query(`update operators set is_active = false where slug = 'mock-store-external'`);
  const result = await env.client.workflow.execute(storeCatalogSyncAllWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: `store-sync-all-test-${Date.now()}`,
    args: [{ searchAttributes: false }],
  });
  expect(result.providers.map((p) => ['slug' in p ? p.slug : p.providerId, p.status]).sort()).toEqual([
    ['mock-store', 'synced'],
    ['mock-store-lite', 'synced'],
  ]);
  const lite = await env.client.workflow.getHandle(storeSyncWorkflowId(providerId('mock-store-lite'))).describe();
  expect(lite.status.name).toBe('COMPLETED');
});

it('runs one sync per provider at a time: a second start joins the running one, the sync of all reports it', async () => {
  let release!: () => void;
  behaviour.hold = new Promise<void>((resolve) => (release = resolve));
  const runs = createStoreSyncRuns(env.client, { TEMPORAL_TASK_QUEUE: worker.taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false });
  const first = await runs.syncProvider({ id: MOCK_STORE, slug: 'mock-store' });
  const firstRun = (await env.client.workflow.getHandle(first.workflowId).describe()).runId;
  const second = await runs.syncProvider({ id: MOCK_STORE, slug: 'mock-store' });
  expect(second).toEqual(first);
  expect(first.workflowId).toBe(`store-sync:${MOCK_STORE}`);
  expect((await env.client.workflow.getHandle(second.workflowId).describe()).runId).toBe(firstRun);

  const all: StoreSyncAllResult = await env.client.workflow.execute(storeCatalogSyncAllWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: `store-sync-all-test-${Date.now()}`,
    args: [{ searchAttributes: false }],
  });
  expect(all.providers.find((p) => p.providerId === MOCK_STORE)).toEqual({
    status: 'already_running',
    providerId: MOCK_STORE,
    slug: 'mock-store',
  });

  release();
  expect(await env.client.workflow.getHandle(first.workflowId).result()).toMatchObject({ status: 'synced' });
  expect(behaviour.listings).toBe(1);
});

it('knows every stand-in SKU', () => {
  expect(MOCK_STORE_SKUS.filter((s) => s.providerSlug === 'mock-store')).toHaveLength(9);
});
