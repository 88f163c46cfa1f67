/**
 * The store's administration (esim-store spec, "Admin (role `super_admin` or `admin` first, then area
 * `store`: View for reads, Manage for writes)"): providers and their toggle, products and their edit,
 * the manual catalog sync; against real Postgres with the stand-ins seeded.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { MOCK_STORE_PROVIDERS } from '../../src/store/providers/mock-catalog';
import { createMockStoreProvider, mockStoreProviders } from '../../src/store/providers/mock';
import { StoreProviderRegistry } from '../../src/store/providers/plugin';
import type { StoreSyncRuns } from '../../src/store/runs';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { signInAs, type Caller } from '../helpers/company-routes';
import { errorOf } from '../helpers/responses';
import { signUpSuperAdmin } from '../helpers/staff';
import { createStoreApp, productId, providerId, seedStore } from '../helpers/store';

/** A fake sync port: records what it was asked, answers the workflow id, or fails when told. */
const syncs = {
  asked: [] as Array<{ id: string; slug: string } | 'all'>,
  fail: false,
};
const fakeRuns: StoreSyncRuns = {
  syncProvider(provider) {
    if (syncs.fail) return Promise.reject(new Error('Temporal is away'));
    syncs.asked.push(provider);
    return Promise.resolve({ workflowId: `store-sync:${provider.id}` });
  },
  syncAll() {
    if (syncs.fail) return Promise.reject(new Error('Temporal is away'));
    syncs.asked.push('all');
    return Promise.resolve({ workflowId: 'store-sync:all' });
  },
};

/** The registry: the three mocks, mock-store-lite failing its health check; a `ghost` row gets no plugin. */
const registry = new StoreProviderRegistry([
  createMockStoreProvider('mock-store'),
  createMockStoreProvider('mock-store-lite', { unhealthy: true }),
  createMockStoreProvider('mock-store-external'),
]);

let t: TestApp;
let root: Caller;
let viewer: Caller;
let manager: Caller;
let b2bOnly: Caller;
let user: Caller;
beforeAll(async () => {
  t = await createStoreApp({ deps: { storeProviders: registry, storeSyncs: fakeRuns } });
  root = await signUpSuperAdmin(t, 'Root');
  viewer = await signInAs(t, 'admin', { view: ['store'] });
  manager = await signInAs(t, 'admin', { view: ['store'], manage: ['store'] });
  b2bOnly = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
  user = await signInAs(t, 'end_user');
});
afterAll(() => t?.close());
afterEach(async () => {
  syncs.asked.length = 0;
  syncs.fail = false;
  await seedStore(t);
});

type Method = 'get' | 'post' | 'patch';
const call = (method: Method, path: string, who?: Caller, body?: object, lang = 'en') => {
  const req = request(t.app)[method](path).set('Accept-Language', lang);
  if (who) req.set(bearer(who.token));
  return body ? req.send(body) : req;
};

const ROUTES: Array<[Method, string, 'view' | 'manage', object | undefined]> = [
  ['get', '/admin/store/providers', 'view', undefined],
  ['post', `/admin/store/providers/${providerId('mock-store')}/toggle`, 'manage', { isActive: true }],
  ['get', '/admin/store/products', 'view', undefined],
  ['patch', `/admin/store/products/${productId('MOCK-SYNC-SA-5GB')}`, 'manage', { nameAr: 'السعودية 5 جيجابايت' }],
  ['post', '/admin/store/catalog/sync', 'manage', {}],
];

describe('guards', () => {
  it('checks the role first, then the store area: View for reads, Manage for writes; super_admin passes both', async () => {
    const b2bAdminWithStore = await signUp(t, { name: 'Portal' });
    await t.db.query(`update users set app_role = 'b2b_admin', managed_areas = '{store}', managed_areas_write = '{store}' where id = $1`, [
      b2bAdminWithStore.userId,
    ]);
    for (const [method, path, access, body] of ROUTES) {
      const status = async (who?: Caller) => (await call(method, path, who, body)).status;
      const ok = method === 'post' && path.endsWith('/sync') ? 202 : 200;
      expect([path, await status()]).toEqual([path, 401]);
      expect([path, await status(user)]).toEqual([path, 403]);
      expect([path, await status(b2bOnly)]).toEqual([path, 403]);
      expect([path, await status({ token: b2bAdminWithStore.token, userId: b2bAdminWithStore.userId })]).toEqual([path, 403]);
      expect([path, await status(viewer)]).toEqual([path, access === 'view' ? 200 : 403]);
      expect([path, await status(manager)]).toEqual([path, ok]);
      expect([path, await status(root)]).toEqual([path, ok]);
    }
    const forbidden = await call('post', '/admin/store/catalog/sync', viewer, {}, 'ar');
    expect([errorCode(forbidden), errorOf(forbidden).message]).toEqual(['AUTH_FORBIDDEN', 'ليست لديك صلاحية لتنفيذ هذا الإجراء']);
  });

  it('resolves the area per request, never from the token', async () => {
    const admin = await signInAs(t, 'admin', { view: ['store'] });
    expect((await call('get', '/admin/store/providers', admin)).status).toBe(200);
    await t.db.query(`update users set managed_areas = '{b2b}' where id = $1`, [admin.userId]);
    expect((await call('get', '/admin/store/providers', admin)).status).toBe(403);
  });

  it('lets a super_admin give an admin the store area through /admin/users', async () => {
    const made = await call('post', '/admin/users', root, {
      appRole: 'admin',
      name: 'Store Admin',
      email: `store-${randomUUID().slice(0, 8)}@example.com`,
      managedAreas: ['store'],
      managedAreasWrite: ['store'],
    });
    expect(made.status).toBe(201);
    expect((made.body as { data: { managedAreas: string[]; managedAreasWrite: string[] } }).data).toMatchObject({
      managedAreas: ['store'],
      managedAreasWrite: ['store'],
    });
  });

  it('keeps the administration available with the store gate off', async () => {
    const off = await createTestApp();
    try {
      const admin = await signUpSuperAdmin(off, 'Root');
      const res = await request(off.app).get('/admin/store/providers').set(bearer(admin.token));
      expect([res.status, res.body]).toEqual([200, { data: [] }]);
    } finally {
      await off.close();
    }
  });
});

interface ProviderView {
  id: string;
  slug: string;
  isActive: boolean;
  paymentMode: string;
  supportsAsync: boolean;
  health: { ok: boolean; checkedAt: string | null; detail: string | null };
}

describe('GET /admin/store/providers', () => {
  it('lists every eSIM store provider (no telecom operator) with its payment mode, async flag and recorded health', async () => {
    const res = await call('get', '/admin/store/providers', viewer);
    const checkedAt = t.clock().toISOString();
    expect([res.status, res.body]).toEqual([
      200,
      {
        data: MOCK_STORE_PROVIDERS.map((p) => ({
          id: p.id,
          slug: p.slug,
          nameEn: p.nameEn,
          nameAr: p.nameAr,
          isActive: true,
          paymentMode: p.paymentMode,
          supportsAsync: p.supportsAsync,
          health: { ok: true, checkedAt, detail: 'mock provider: healthy' },
        })).sort((a, b) => a.slug.localeCompare(b.slug)),
      },
    ]);
  });

  it('shows a provider never checked as not ok, with no check time', async () => {
    await t.db.query(`update operators set health_ok = null, health_checked_at = null, health_detail = null where id = $1`, [
      providerId('mock-store'),
    ]);
    const { data } = (await call('get', '/admin/store/providers', root)).body as { data: ProviderView[] };
    expect(data.find((p) => p.slug === 'mock-store')!.health).toEqual({ ok: false, checkedAt: null, detail: null });
  });
});

describe('POST /admin/store/providers/:id/toggle', () => {
  const toggle = (id: string, body: object, who = manager, lang = 'en') =>
    call('post', `/admin/store/providers/${id}/toggle`, who, body, lang);
  const browse = async () =>
    ((await request(t.app).get('/store/products?limit=100')).body as { items: Array<{ providerSlug: string }> }).items.map(
      (p) => p.providerSlug,
    );

  it('turns a provider off (its products leave the store) and on again after a passing health check, recorded', async () => {
    const id = providerId('mock-store');
    t.clock.advance(1_000);
    const since = t.clock();
    const off = await toggle(id, { isActive: false });
    expect([off.status, (off.body as { data: ProviderView }).data.isActive]).toEqual([200, false]);
    expect(await browse()).not.toContain('mock-store');

    t.clock.advance(60_000);
    const on = await toggle(id, { isActive: true });
    expect([on.status, (on.body as { data: ProviderView }).data]).toEqual([
      200,
      expect.objectContaining({
        isActive: true,
        health: { ok: true, checkedAt: t.clock().toISOString(), detail: 'mock provider: healthy' },
      }),
    ]);
    expect(await browse()).toContain('mock-store');
    const audit = await t.db.query<{ action: string; details: unknown }>(
      `select action, details from audit_events where entity_type = 'store_provider' and entity_id = $1 and created_at >= $2 order by created_at`,
      [id, since],
    );
    expect(audit).toEqual([
      { action: 'store.provider_toggled', details: { before: { isActive: true }, after: { isActive: false } } },
      { action: 'store.provider_toggled', details: { before: { isActive: false }, after: { isActive: true } } },
    ]);
  });

  it('refuses to turn on a provider whose health check fails (STORE_PROVIDER_UNAVAILABLE 422, both languages): it stays off, the failure recorded', async () => {
    const id = providerId('mock-store-lite');
    await toggle(id, { isActive: false });
    const en = await toggle(id, { isActive: true });
    expect([en.status, errorCode(en), errorOf(en).message]).toEqual([
      422,
      'STORE_PROVIDER_UNAVAILABLE',
      'The provider is currently unavailable',
    ]);
    const ar = await toggle(id, { isActive: true }, manager, 'ar');
    expect(errorOf(ar).message).toBe('المزوّد غير متاح حالياً');
    expect(await t.db.query(`select is_active, health_ok, health_detail from operators where id = $1`, [id])).toEqual([
      { is_active: false, health_ok: false, health_detail: 'mock provider: health check failed (MOCK_STORE_UNHEALTHY)' },
    ]);
  });

  it('refuses to turn on a provider no plugin is registered for (fail closed)', async () => {
    const [ghost] = await t.db.query<{ id: string }>(
      `insert into operators (slug, kind, name_en, name_ar, is_active, payment_mode, created_at, updated_at)
       values ('ghost-store', 'esim_store', 'Ghost', 'شبح', false, 'internal', now(), now()) returning id`,
    );
    const res = await toggle(ghost.id, { isActive: true });
    expect([res.status, errorCode(res)]).toEqual([422, 'STORE_PROVIDER_UNAVAILABLE']);
    expect((await toggle(ghost.id, { isActive: false })).status).toBe(200);
    await t.db.query(`delete from operators where id = $1`, [ghost.id]);
  });

  it('answers STORE_PROVIDER_NOT_FOUND 404 for an id with no eSIM store provider row, a telecom operator’s included (both languages)', async () => {
    const [telecom] = await t.db.query<{ id: string }>(
      `insert into operators (slug, kind, name_en, name_ar, created_at, updated_at) values ('tel-toggle', 'telecom', 'T', 'ت', now(), now()) returning id`,
    );
    for (const id of [telecom.id, randomUUID()]) {
      const res = await toggle(id, { isActive: true });
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'STORE_PROVIDER_NOT_FOUND', 'Provider not found']);
    }
    expect(errorOf(await toggle(telecom.id, { isActive: false }, manager, 'ar')).message).toBe('لم يتم العثور على المزوّد');
  });

  it.each([
    ['not-a-uuid', { isActive: true }],
    [providerId('mock-store'), {}],
    [providerId('mock-store'), { isActive: 'yes' }],
    [providerId('mock-store'), { isActive: true, extra: 1 }],
  ])('answers VALIDATION_ERROR 400 for %s %j', async (id, body) => {
    const res = await toggle(id, body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

interface AdminProduct {
  id: string;
  sku: string;
  providerSlug: string;
  nameEn: string;
  nameAr: string;
  isActive: boolean;
  syncedAt: string;
}
type ProductPage = { data: { products: AdminProduct[]; total: number; page: number; limit: number } };

describe('GET /admin/store/products', () => {
  const products = async (query: Record<string, string> = {}, who = viewer) =>
    (await call('get', `/admin/store/products?${new URLSearchParams(query).toString()}`, who)) as { status: number; body: ProductPage };

  it('lists every product (inactive and external ones too) by provider and SKU, with sku, isActive and syncedAt; offset-paged', async () => {
    const res = await products();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 12, page: 1, limit: 20 });
    expect(res.body.data.products.map((p) => `${p.providerSlug}/${p.sku}`)).toEqual([
      'mock-store/MOCK-ASYNC-EG-3GB',
      'mock-store/MOCK-FAILONCE-GB-2GB',
      'mock-store/MOCK-KYC-SA-10GB',
      'mock-store/MOCK-REJECT-US-1GB',
      'mock-store/MOCK-SYNC-AE-1GB',
      'mock-store/MOCK-SYNC-CHEAP-100MB',
      'mock-store/MOCK-SYNC-GLOBAL-UNL',
      'mock-store/MOCK-SYNC-OLD-1GB',
      'mock-store/MOCK-SYNC-SA-5GB',
      'mock-store-external/EXT-SYNC-SA-1GB',
      'mock-store-lite/LITE-KYC-SA-5GB',
      'mock-store-lite/LITE-SYNC-SA-1GB',
    ]);
    expect(res.body.data.products.find((p) => p.sku === 'MOCK-SYNC-OLD-1GB')).toEqual({
      id: productId('MOCK-SYNC-OLD-1GB'),
      providerSlug: 'mock-store',
      sku: 'MOCK-SYNC-OLD-1GB',
      nameEn: 'Saudi Arabia 1 GB (old)',
      nameAr: 'السعودية 1 جيجابايت (قديم)',
      countries: ['SA'],
      dataAmountMb: 1024,
      isUnlimited: false,
      validityDays: 7,
      requiresKyc: false,
      price: { amount: 3, currency: 'USD' },
      priceUsd: { amount: 3, currency: 'USD' },
      fx: null,
      isActive: false,
      syncedAt: t.clock().toISOString(),
    });
    const second = await products({ page: '2', limit: '5' });
    expect(second.body.data).toMatchObject({ total: 12, page: 2, limit: 5 });
    expect(second.body.data.products.map((p) => p.sku)).toEqual(res.body.data.products.slice(5, 10).map((p) => p.sku));
  });

  it('filters by provider, active flag and a name or SKU substring (any case, either language)', async () => {
    const lite = await products({ providerId: providerId('mock-store-lite') });
    expect(lite.body.data.products.map((p) => p.sku)).toEqual(['LITE-KYC-SA-5GB', 'LITE-SYNC-SA-1GB']);
    expect((await products({ isActive: 'false' })).body.data.products.map((p) => p.sku)).toEqual(['MOCK-SYNC-OLD-1GB']);
    expect((await products({ isActive: 'true' })).body.data.total).toBe(11);
    expect((await products({ search: 'cheap' })).body.data.products.map((p) => p.sku)).toEqual(['MOCK-SYNC-CHEAP-100MB']);
    expect((await products({ search: 'مصر' })).body.data.products.map((p) => p.sku)).toEqual(['MOCK-ASYNC-EG-3GB']);
    expect((await products({ search: 'unlimited' })).body.data.products.map((p) => p.sku)).toEqual(['MOCK-SYNC-GLOBAL-UNL']);
    expect((await products({ search: '100%' })).body.data).toMatchObject({ total: 0, products: [] });
    const combined = await products({ providerId: providerId('mock-store'), isActive: 'true', search: 'sa-' });
    expect(combined.body.data.products.map((p) => p.sku)).toEqual(['MOCK-KYC-SA-10GB', 'MOCK-SYNC-SA-5GB']);
    expect((await products({ providerId: randomUUID() })).body.data).toEqual({ products: [], total: 0, page: 1, limit: 20 });
  });

  it.each([
    [{ limit: '101' }],
    [{ page: '0' }],
    [{ isActive: 'yes' }],
    [{ providerId: 'x' }],
    [{ search: '' }],
    [{ search: 'x'.repeat(101) }],
    [{ sku: 'a' }],
  ])('answers VALIDATION_ERROR 400 for %j', async (query) => {
    const res = await products(query);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('PATCH /admin/store/products/:id', () => {
  const patch = (id: string, body: object, lang = 'en') => call('patch', `/admin/store/products/${id}`, manager, body, lang);
  const visible = async (id: string) => (await request(t.app).get(`/store/products/${id}`)).status === 200;

  it('renames a product (kept across syncs) and answers the admin product; audited', async () => {
    const id = productId('MOCK-SYNC-SA-5GB');
    const res = await patch(id, { nameEn: ' KSA 5 GB ', nameAr: 'السعودية ٥ جيجابايت' });
    expect(res.status).toBe(200);
    expect((res.body as { data: AdminProduct }).data).toMatchObject({
      id,
      sku: 'MOCK-SYNC-SA-5GB',
      nameEn: 'KSA 5 GB',
      nameAr: 'السعودية ٥ جيجابايت',
      isActive: true,
    });
    expect(await t.db.query(`select name_customized, disabled_by_admin from store_products where id = $1`, [id])).toEqual([
      { name_customized: true, disabled_by_admin: false },
    ]);
    const [audit] = await t.db.query<{ action: string; actor_user_id: string; details: unknown }>(
      `select action, actor_user_id, details from audit_events where entity_type = 'store_product' and entity_id = $1`,
      [id],
    );
    expect(audit).toEqual({
      action: 'store.product_updated',
      actor_user_id: manager.userId,
      details: {
        before: { isActive: true, nameEn: 'Saudi Arabia 5 GB', nameAr: 'السعودية 5 جيجابايت' },
        after: { isActive: true, nameEn: 'KSA 5 GB', nameAr: 'السعودية ٥ جيجابايت' },
      },
    });
  });

  it('turns a product off (hidden from the store, kept off by syncs) and on again', async () => {
    const id = productId('MOCK-SYNC-AE-1GB');
    const off = await patch(id, { isActive: false });
    expect([off.status, (off.body as { data: AdminProduct }).data.isActive]).toEqual([200, false]);
    expect(await visible(id)).toBe(false);
    expect(await t.db.query(`select disabled_by_admin from store_products where id = $1`, [id])).toEqual([{ disabled_by_admin: true }]);
    expect((await patch(id, { isActive: true })).status).toBe(200);
    expect(await visible(id)).toBe(true);
  });

  it('answers STORE_PRODUCT_NOT_FOUND 404 for an unknown product, both languages', async () => {
    const res = await patch(randomUUID(), { isActive: false }, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'STORE_PRODUCT_NOT_FOUND', 'لم يتم العثور على المنتج']);
  });

  it.each([
    ['not-a-uuid', { isActive: false }],
    [productId('MOCK-SYNC-SA-5GB'), {}],
    [productId('MOCK-SYNC-SA-5GB'), { nameEn: '' }],
    [productId('MOCK-SYNC-SA-5GB'), { nameEn: '   ' }],
    [productId('MOCK-SYNC-SA-5GB'), { nameAr: 'x'.repeat(256) }],
    [productId('MOCK-SYNC-SA-5GB'), { isActive: 'no' }],
    [productId('MOCK-SYNC-SA-5GB'), { priceUsd: 1 }],
  ])('answers VALIDATION_ERROR 400 for %s %j', async (id, body) => {
    const res = await patch(id, body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('accepts names of exactly 255 characters', async () => {
    expect((await patch(productId('MOCK-SYNC-SA-5GB'), { nameEn: 'x'.repeat(255) })).status).toBe(200);
  });
});

describe('POST /admin/store/catalog/sync', () => {
  const sync = (body: object, lang = 'en') => call('post', '/admin/store/catalog/sync', manager, body, lang);

  it('starts the sync of every active provider when no provider is named: 202 with the workflow id', async () => {
    const res = await sync({});
    expect([res.status, res.body]).toEqual([202, { data: { workflowId: 'store-sync:all' } }]);
    expect(syncs.asked).toEqual(['all']);
  });

  it('starts one provider’s sync, inactive ones included: 202 with store-sync:<providerId>', async () => {
    await t.db.query(`update operators set is_active = false where id = $1`, [providerId('mock-store-lite')]);
    const res = await sync({ providerId: providerId('mock-store-lite') });
    expect([res.status, res.body]).toEqual([202, { data: { workflowId: `store-sync:${providerId('mock-store-lite')}` } }]);
    expect(syncs.asked).toEqual([{ id: providerId('mock-store-lite'), slug: 'mock-store-lite' }]);
  });

  it('answers STORE_PROVIDER_NOT_FOUND 404 for an id with no eSIM store provider, VALIDATION_ERROR for a malformed one', async () => {
    const res = await sync({ providerId: randomUUID() }, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'STORE_PROVIDER_NOT_FOUND', 'لم يتم العثور على المزوّد']);
    for (const body of [{ providerId: 'x' }, { providerId: providerId('mock-store'), all: true }]) {
      const bad = await sync(body);
      expect([bad.status, errorCode(bad)]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect(syncs.asked).toEqual([]);
  });

  it('answers STORE_SYNC_UNAVAILABLE 503 when the sync could not be enqueued, both languages', async () => {
    syncs.fail = true;
    const en = await sync({});
    expect([en.status, errorCode(en), errorOf(en).message]).toEqual([
      503,
      'STORE_SYNC_UNAVAILABLE',
      'Catalog sync is unavailable right now, please try again later',
    ]);
    const ar = await sync({ providerId: providerId('mock-store') }, 'ar');
    expect([ar.status, errorOf(ar).message]).toEqual([503, 'مزامنة الكتالوج غير متاحة حالياً، يرجى المحاولة لاحقاً']);
  });

  it('answers STORE_SYNC_UNAVAILABLE without Temporal configured', async () => {
    const bare = await createTestApp({ deps: { storeProviders: mockStoreProviders() } });
    try {
      const admin = await signUpSuperAdmin(bare, 'Root');
      const res = await request(bare.app).post('/admin/store/catalog/sync').set(bearer(admin.token)).send({});
      expect([res.status, errorCode(res)]).toEqual([503, 'STORE_SYNC_UNAVAILABLE']);
    } finally {
      await bare.close();
    }
  });
});
