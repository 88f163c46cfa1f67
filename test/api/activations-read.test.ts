import type { Express } from 'express';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import request from 'supertest';
import type { z } from 'zod';
import type { ActivationHistoryResponse, ActivationRecordsResponse, ActivationStatusResponse } from '../../src/activations/read-routes';
import type { FieldIssue } from '../../src/http/errors';
import { bearer, createTestApp, errorCode, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { binaryParser, DEMO, insertActivation, OPERATOR_API_BASE, OPERATOR_SECRET, seedCatalog, storedProfile } from '../helpers/read-app';
import { errorOf, typed, type Answer } from '../helpers/responses';

type Status = z.infer<typeof ActivationStatusResponse>;
type History = z.infer<typeof ActivationHistoryResponse>;
type Records = z.infer<typeof ActivationRecordsResponse>;

let t: TestApp;
let app: Express;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  await seedCatalog(t);
});
afterAll(() => t.close());

const code = errorCode;

async function superAdmin() {
  const admin = await signUp(t, { name: 'Root' });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [admin.userId]);
  return admin;
}

describe('GET /activations/:id/status', () => {
  it('answers every field for the owner, timestamps in ISO 8601 with milliseconds', async () => {
    const alice = await signUp(t);
    const { activationId, iccid } = await insertActivation(t, {
      userId: alice.userId,
      estimatedActivationSeconds: 120,
      createdAt: '2026-03-01T10:00:00.123Z',
      updatedAt: '2026-03-01T10:05:00.456Z',
    });
    const res = await request(app).get(`/activations/${activationId}/status`).set(bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: activationId,
      iccid,
      simType: 'physical',
      esimProfile: null,
      status: 'pending',
      identityStatus: 'waiting',
      estimatedActivationSeconds: 120,
      createdAt: '2026-03-01T10:00:00.123Z',
      updatedAt: '2026-03-01T10:05:00.456Z',
    });
  });

  it('keeps esimProfile null until the activation is activated, then shows exactly the four profile fields', async () => {
    const alice = await signUp(t);
    const issued = 'LPA:1$smdp.example.com$MATCH-ABC-123-9F00AA11';
    const { activationId } = await insertActivation(t, {
      userId: alice.userId,
      simType: 'esim',
      status: 'in_progress',
      identityStatus: 'completed',
      iccid: '8997000000000000017',
      esimProfile: { ...storedProfile(issued), iccidSuffix: '0017', secretNote: 'x' },
    });
    const url = `/activations/${activationId}/status`;
    const before = await request(app).get(url).set(bearer(alice.token));
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ simType: 'esim', status: 'in_progress', identityStatus: 'completed', esimProfile: null });

    await t.db.query(`update activations set status = 'activated', activated_at = now() where id = $1`, [activationId]);
    const after = typed<Status>(await request(app).get(url).set(bearer(alice.token)));
    expect(after.body.status).toBe('activated');
    expect(after.body.iccid).toBe('8997000000000000017');
    expect(after.body.esimProfile).toEqual({
      smdpAddress: 'smdp.example.com',
      matchingId: 'MATCH-ABC-123-9F00AA11',
      activationCodeRaw: issued,
      qrUrl: `/activations/${activationId}/esim-qr`,
    });
  });

  it.each(['pending', 'in_progress', 'failed', 'cancelled'] as const)('hides the profile while %s', async (status) => {
    const alice = await signUp(t);
    const { activationId } = await insertActivation(t, { userId: alice.userId, simType: 'esim', status, esimProfile: storedProfile() });
    const res = typed<Status>(await request(app).get(`/activations/${activationId}/status`).set(bearer(alice.token)));
    expect([res.status, res.body.esimProfile]).toEqual([200, null]);
  });

  it("answers ACTIVATION_NOT_FOUND for someone else's, unknown, malformed and soft-deleted activations", async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const { activationId: bobs } = await insertActivation(t, { userId: bob.userId });
    const { activationId: deleted } = await insertActivation(t, { userId: alice.userId, deletedAt: '2026-03-02T00:00:00.000Z' });
    for (const id of [bobs, deleted, '7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e', 'not-a-uuid', '1']) {
      const res = await request(app).get(`/activations/${id}/status`).set(bearer(alice.token));
      expect([id, res.status, code(res)]).toEqual([id, 404, 'ACTIVATION_NOT_FOUND']);
    }
    // The owner still sees their own.
    expect((await request(app).get(`/activations/${bobs}/status`).set(bearer(bob.token))).status).toBe(200);
  });

  it('answers AUTH_REQUIRED without a session', async () => {
    const res = await request(app).get('/activations/7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e/status');
    expect([res.status, code(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});

describe('GET /activations/:id/esim-qr', () => {
  async function getPng(target: Express, path: string, token: string) {
    return request(target)
      .get(path)
      .set(bearer(token))
      .buffer(true)
      .parse(binaryParser as never);
  }

  it('renders the issued LPA code as a PNG QR, private and never cached', async () => {
    const alice = await signUp(t);
    const issued = 'LPA:1$smdp.example.com$MATCH-QR-77-ABCDEF01';
    const { activationId } = await insertActivation(t, {
      userId: alice.userId,
      simType: 'esim',
      status: 'activated',
      identityStatus: 'completed',
      esimProfile: storedProfile(issued),
    });
    const res = await getPng(app, `/activations/${activationId}/esim-qr`, alice.token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const body = res.body as Buffer;
    expect(body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const png = PNG.sync.read(body);
    const decoded = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    expect(decoded?.data).toBe(issued);
  });

  it('answers ACTIVATION_NOT_FOUND for physical SIMs, eSIMs not yet issued, foreign, unknown and malformed ids', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const physical = await insertActivation(t, { userId: alice.userId, status: 'activated' });
    const waiting = await insertActivation(t, {
      userId: alice.userId,
      simType: 'esim',
      status: 'in_progress',
      esimProfile: storedProfile(),
    });
    const noProfile = await insertActivation(t, { userId: alice.userId, simType: 'esim', status: 'activated' });
    const foreign = await insertActivation(t, { userId: bob.userId, simType: 'esim', status: 'activated', esimProfile: storedProfile() });
    const deleted = await insertActivation(t, {
      userId: alice.userId,
      simType: 'esim',
      status: 'activated',
      esimProfile: storedProfile(),
      deletedAt: '2026-03-02T00:00:00.000Z',
    });
    for (const id of [
      physical.activationId,
      waiting.activationId,
      noProfile.activationId,
      foreign.activationId,
      deleted.activationId,
      '7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e',
      'nope',
    ]) {
      const res = await request(app).get(`/activations/${id}/esim-qr`).set(bearer(alice.token));
      expect([id, res.status, code(res)]).toEqual([id, 404, 'ACTIVATION_NOT_FOUND']);
    }
    expect((await getPng(app, `/activations/${foreign.activationId}/esim-qr`, bob.token)).status).toBe(200);
  });

  it('answers AUTH_REQUIRED without a session', async () => {
    const res = await request(app).get('/activations/7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e/esim-qr');
    expect([res.status, code(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('answers ACTIVATION_ESIM_DISABLED when FEATURE_ESIM is off, before looking the activation up', async () => {
    const off = await createTestApp({ env: { FEATURE_ESIM: 'false' } });
    try {
      await seedCatalog(off);
      const offApp = off.app;
      const carol = await signUp(off);
      const { activationId } = await insertActivation(off, {
        userId: carol.userId,
        simType: 'esim',
        status: 'activated',
        esimProfile: storedProfile(),
      });
      for (const id of [activationId, '7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e']) {
        const res = await request(offApp).get(`/activations/${id}/esim-qr`).set(bearer(carol.token));
        expect([res.status, code(res)]).toEqual([422, 'ACTIVATION_ESIM_DISABLED']);
      }
    } finally {
      await off.close();
    }
  });
});

describe('GET /activations/history', () => {
  const history = async (token: string, query: Record<string, string | number> = {}) =>
    typed<History>(await request(app).get('/activations/history').query(query).set(bearer(token)));

  async function all(token: string, limit: number, extra: Record<string, string> = {}) {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const res = await history(token, { limit, ...extra, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      pages += 1;
      ids.push(...res.body.items.map((i) => i.activationId));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      if (!res.body.hasMore) break;
      expect(res.body.items).toHaveLength(limit);
      cursor = res.body.nextCursor;
    }
    return { ids, pages };
  }

  it('lists every field of the own activations, newest first', async () => {
    const dana = await signUp(t);
    const older = await insertActivation(t, {
      userId: dana.userId,
      packageId: DEMO.packages.basic,
      createdAt: '2026-04-01T08:00:00.001Z',
      updatedAt: '2026-04-01T09:00:00.002Z',
    });
    const newer = await insertActivation(t, {
      userId: dana.userId,
      packageId: DEMO.packages.plus,
      simType: 'esim',
      status: 'activated',
      identityStatus: 'completed',
      esimProfile: storedProfile(),
      estimatedActivationSeconds: 90,
      createdAt: '2026-04-02T08:00:00.000Z',
      updatedAt: '2026-04-02T08:30:00.999Z',
    });
    const res = await history(dana.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          activationId: newer.activationId,
          iccid: newer.iccid,
          simType: 'esim',
          status: 'activated',
          esimProfile: { ...storedProfile(), qrUrl: `/activations/${newer.activationId}/esim-qr` },
          packageNameEn: 'Plus 20 GB',
          packageNameAr: 'باقة بلس 20 جيجابايت',
          operatorNameEn: 'Mock Telecom',
          operatorNameAr: 'الاتصالات التجريبية',
          estimatedActivationSeconds: 90,
          createdAt: '2026-04-02T08:00:00.000Z',
          updatedAt: '2026-04-02T08:30:00.999Z',
        },
        {
          activationId: older.activationId,
          iccid: older.iccid,
          simType: 'physical',
          status: 'pending',
          esimProfile: null,
          packageNameEn: 'Basic 2 GB',
          packageNameAr: 'الباقة الأساسية 2 جيجابايت',
          operatorNameEn: 'Mock Telecom (no eSIM)',
          operatorNameAr: 'الاتصالات التجريبية (بدون شريحة إلكترونية)',
          estimatedActivationSeconds: null,
          createdAt: '2026-04-01T08:00:00.001Z',
          updatedAt: '2026-04-01T09:00:00.002Z',
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
  });

  it('pages through 50 activations sharing one createdAt without duplicates or gaps, in (createdAt, id) order', async () => {
    const erin = await signUp(t);
    const shared = '2026-05-05T05:05:05.505Z';
    const sharedIds: string[] = [];
    for (let i = 0; i < 50; i += 1) sharedIds.push((await insertActivation(t, { userId: erin.userId, createdAt: shared })).activationId);
    const newest = await insertActivation(t, { userId: erin.userId, createdAt: '2026-05-06T00:00:00.000Z' });
    const oldest = await insertActivation(t, { userId: erin.userId, createdAt: '2026-05-04T00:00:00.000Z' });
    const expected = [newest.activationId, ...[...sharedIds].sort().reverse(), oldest.activationId];

    for (const limit of [1, 7, 20, 52, 100]) {
      const { ids, pages } = await all(erin.token, limit);
      expect(ids).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(52 / limit)));
    }

    const first = await history(erin.token, { limit: 7 });
    expect(first.body.nextCursor).toBe(`${shared}|${first.body.items[6].activationId}`);
  });

  it('keeps keyset pages exact for rows stored with microsecond timestamps', async () => {
    const fay = await signUp(t);
    const stamps = [
      '2026-06-01T00:00:00.123456Z',
      '2026-06-01T00:00:00.123456Z',
      '2026-06-01T00:00:00.123789Z',
      '2026-06-01T00:00:00.123001Z',
      '2026-06-01T00:00:00.123Z',
      '2026-06-01T00:00:00.122999Z',
    ];
    const rows = [];
    for (const createdAt of stamps)
      rows.push({ id: (await insertActivation(t, { userId: fay.userId, createdAt })).activationId, createdAt });
    const micros = (s: string) => s.replace('Z', '').padEnd(26, '0');
    const expected = rows
      .sort((a, b) => micros(b.createdAt).localeCompare(micros(a.createdAt)) || b.id.localeCompare(a.id))
      .map((r) => r.id);
    for (const limit of [1, 2, 4]) expect((await all(fay.token, limit)).ids).toEqual(expected);
  });

  it('uses a default page size of 20 and accepts 1 to 100', async () => {
    const gus = await signUp(t);
    for (let i = 0; i < 25; i += 1)
      await insertActivation(t, { userId: gus.userId, createdAt: new Date(Date.UTC(2026, 6, 1, 0, i)).toISOString() });
    const res = await history(gus.token);
    expect([res.body.items.length, res.body.hasMore]).toEqual([20, true]);
    expect(res.body.nextCursor).toBe(`${res.body.items[19].createdAt}|${res.body.items[19].activationId}`);
    expect((await history(gus.token, { limit: 1 })).body.items).toHaveLength(1);
    const max = await history(gus.token, { limit: 100 });
    expect([max.body.items.length, max.body.hasMore, max.body.nextCursor]).toEqual([25, false, null]);
  });

  it.each(['0', '101', 'abc', '1.5', '-1', '', '1e1', ' 5'])('rejects limit=%j with VALIDATION_ERROR on limit', async (limit) => {
    const hal = await signUp(t);
    const res = await request(app)
      .get(`/activations/history?limit=${encodeURIComponent(limit)}`)
      .set(bearer(hal.token));
    expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toEqual([{ path: 'limit', message: match.any(String) }]);
  });

  it('rejects a repeated limit parameter', async () => {
    const hal = await signUp(t);
    const res = await request(app).get('/activations/history?limit=1&limit=2').set(bearer(hal.token));
    expect([res.status, code(res), errorOf<FieldIssue[]>(res).details[0].path]).toEqual([400, 'VALIDATION_ERROR', 'limit']);
  });

  it.each([
    'garbage',
    'x|y',
    '2026-05-05T05:05:05.505Z',
    '2026-05-05T05:05:05.505Z|not-a-uuid',
    '2026-13-05T05:05:05.505Z|7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e',
    '2026-02-30T05:05:05.505Z|7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e',
    '2026-05-05 05:05:05|7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e',
    "2026-05-05T05:05:05.505Z|7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e' or 1=1 --",
  ])('rejects cursor %j with VALIDATION_ERROR on cursor', async (cursor) => {
    const ian = await signUp(t);
    const res = await history(ian.token, { cursor });
    expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toEqual([{ path: 'cursor', message: match.any(String) }]);
  });

  it('filters by status, and rejects an unknown status', async () => {
    const jo = await signUp(t);
    const active = await insertActivation(t, { userId: jo.userId, status: 'activated', createdAt: '2026-07-01T00:00:00.000Z' });
    await insertActivation(t, { userId: jo.userId, status: 'pending', createdAt: '2026-07-02T00:00:00.000Z' });
    const failed = await insertActivation(t, {
      userId: jo.userId,
      status: 'failed',
      failedReason: 'x',
      createdAt: '2026-07-03T00:00:00.000Z',
    });
    const ids = async (status: string) => (await history(jo.token, { status })).body.items.map((i) => i.activationId);
    expect(await ids('activated')).toEqual([active.activationId]);
    expect(await ids('failed')).toEqual([failed.activationId]);
    expect(await ids('cancelled')).toEqual([]);
    const bad = await history(jo.token, { status: 'done' });
    expect([bad.status, code(bad), errorOf<FieldIssue[]>(bad).details[0].path]).toEqual([400, 'VALIDATION_ERROR', 'status']);
  });

  it('pages with a status filter and a cursor together', async () => {
    const kim = await signUp(t);
    const pendings: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      pendings.push(
        (await insertActivation(t, { userId: kim.userId, status: 'pending', createdAt: `2026-08-0${i + 1}T00:00:00.000Z` })).activationId,
      );
      await insertActivation(t, { userId: kim.userId, status: 'failed', createdAt: `2026-08-0${i + 1}T12:00:00.000Z` });
    }
    expect((await all(kim.token, 2, { status: 'pending' })).ids).toEqual(pendings.reverse());
  });

  it("lists only the caller's own rows and never soft-deleted ones", async () => {
    const lea = await signUp(t);
    const max = await signUp(t);
    const kept = await insertActivation(t, { userId: lea.userId, createdAt: '2026-09-01T00:00:00.000Z' });
    await insertActivation(t, { userId: lea.userId, createdAt: '2026-09-02T00:00:00.000Z', deletedAt: '2026-09-03T00:00:00.000Z' });
    const maxs = await insertActivation(t, { userId: max.userId, createdAt: '2026-09-04T00:00:00.000Z' });
    const ids = (res: Answer<History>) => res.body.items.map((i) => i.activationId);
    expect(ids(await history(lea.token))).toEqual([kept.activationId]);
    expect(ids(await history(max.token))).toEqual([maxs.activationId]);
    // A cursor pointing at someone else's row does not reveal it either.
    const res = await history(lea.token, { cursor: `2026-12-31T00:00:00.000Z|${maxs.activationId}` });
    expect(ids(res)).toEqual([kept.activationId]);
  });

  it('answers an empty page for a user without activations, and AUTH_REQUIRED without a session', async () => {
    const ned = await signUp(t);
    expect((await history(ned.token)).body).toEqual({ items: [], nextCursor: null, hasMore: false });
    const res = await request(app).get('/activations/history');
    expect([res.status, code(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});

describe('GET /activations/records', () => {
  // Records see every user's rows: each test isolates its rows by their own createdAt window.
  const records = async (token: string, query: Record<string, string | number> = {}) =>
    typed<Records>(await request(app).get('/activations/records').query(query).set(bearer(token)));
  const ids = (res: Answer<Records>) => res.body.items.map((i) => i.activationId);

  it('answers AUTH_REQUIRED without a session and AUTH_FORBIDDEN for every role but super_admin', async () => {
    const res = await request(app).get('/activations/records');
    expect([res.status, code(res)]).toEqual([401, 'AUTH_REQUIRED']);
    const user = await signUp(t);
    for (const role of ['end_user', 'b2b_admin', 'activation_officer', 'support', 'admin']) {
      await t.db.query('update users set app_role = $1 where id = $2', [role, user.userId]);
      const denied = await records(user.token);
      expect([role, denied.status, code(denied)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
    }
  });

  it('rejects unknown query parameters, including a userId', async () => {
    const admin = await superAdmin();
    const queries: Record<string, string>[] = [{ foo: 'bar' }, { userId: admin.userId }, { limit: '5', sort: 'asc' }];
    for (const query of queries) {
      const res = await records(admin.token, query);
      expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(errorOf(res).details).toEqual(
        match.arrayContaining([{ path: Object.keys(query).find((k) => k !== 'limit'), message: match.any(String) }]),
      );
    }
  });

  it('answers the full record with its order, item, user, package and operator, and no secrets', async () => {
    const admin = await superAdmin();
    const email = `rec-${Date.now()}@example.com`;
    const owner = await signUp(t, { phone: newPhone(), email, name: 'Rania' });
    await t.db.query(`update packages set description_en = null, is_promotional = true, is_price_customized = true where id = $1`, [
      DEMO.packages.unlimited,
    ]);
    await t.db.query(`update operators set logo_url = 'https://cdn.example/mock.png' where id = $1`, [DEMO.operators.mock]);
    const officer = '3c1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e';
    const companyId = '4d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e';
    const issued = 'LPA:1$smdp.example.com$MATCH-REC-1';
    const row = await insertActivation(t, {
      userId: owner.userId,
      packageId: DEMO.packages.unlimited,
      simType: 'esim',
      iccid: '8997000000000000025',
      status: 'activated',
      identityStatus: 'completed',
      identityRef: 'TRX-42',
      idNumberHash: 'a'.repeat(64),
      assignedOfficerId: officer,
      esimProfile: { ...storedProfile(issued), iccidSuffix: '0025' },
      activatedAt: '2030-01-01T00:10:00.000Z',
      retainUntil: '2035-01-01T00:00:00.000Z',
      deletionRequestedAt: '2030-01-02T00:00:00.000Z',
      estimatedActivationSeconds: 60,
      createdAt: '2030-01-01T00:00:00.007Z',
      updatedAt: '2030-01-01T00:10:00.070Z',
      order: {
        status: 'paid',
        companyId,
        totalAmountSar: '398.5',
        createdAt: '2030-01-01T00:00:00.001Z',
        updatedAt: '2030-01-01T00:05:00.002Z',
      },
      orderItem: { quantity: 2, unitPriceSar: '199.25' },
    });
    const res = await records(admin.token, { from: '2030-01-01T00:00:00.000Z', to: '2030-01-01T23:59:59.999Z' });
    expect(res.status).toBe(200);
    const [pkg] = await t.db.query<{ created_at: Date; updated_at: Date }>('select created_at, updated_at from packages where id = $1', [
      DEMO.packages.unlimited,
    ]);
    const [op] = await t.db.query<{ created_at: Date; updated_at: Date }>('select created_at, updated_at from operators where id = $1', [
      DEMO.operators.mock,
    ]);
    const ms = (v: Date | string) => new Date(v).toISOString();
    expect(res.body).toEqual({
      items: [
        {
          activationId: row.activationId,
          orderId: row.orderId,
          orderItemId: row.orderItemId,
          userId: owner.userId,
          operatorId: DEMO.operators.mock,
          packageId: DEMO.packages.unlimited,
          iccid: '8997000000000000025',
          simType: 'esim',
          esimProfile: {
            smdpAddress: 'smdp.example.com',
            matchingId: 'MATCH-REC-1',
            activationCodeRaw: issued,
            qrUrl: `/activations/${row.activationId}/esim-qr`,
          },
          status: 'activated',
          identityStatus: 'completed',
          identityRef: 'TRX-42',
          assignedOfficerId: officer,
          activatedAt: '2030-01-01T00:10:00.000Z',
          failedReason: null,
          retainUntil: '2035-01-01T00:00:00.000Z',
          deletionRequestedAt: '2030-01-02T00:00:00.000Z',
          deletedAt: null,
          estimatedActivationSeconds: 60,
          createdAt: '2030-01-01T00:00:00.007Z',
          updatedAt: '2030-01-01T00:10:00.070Z',
          order: {
            id: row.orderId,
            userId: owner.userId,
            companyId,
            status: 'paid',
            totalAmountSar: '398.50',
            createdAt: '2030-01-01T00:00:00.001Z',
            updatedAt: '2030-01-01T00:05:00.002Z',
          },
          orderItem: {
            id: row.orderItemId,
            orderId: row.orderId,
            packageId: DEMO.packages.unlimited,
            iccid: '8997000000000000025',
            quantity: 2,
            unitPriceSar: '199.25',
          },
          user: { id: owner.userId, name: 'Rania', email, phone: owner.phone },
          package: {
            id: DEMO.packages.unlimited,
            operatorId: DEMO.operators.mock,
            nameEn: 'Unlimited',
            nameAr: 'باقة بلا حدود',
            descriptionEn: null,
            descriptionAr: 'باقة بلا حدود، 30 يوماً',
            dataAmountMb: 1048576,
            voiceMinutes: 3000,
            smsCount: 500,
            validityDays: 30,
            priceSar: '199.00',
            priceSarB2b: null,
            isActive: true,
            isPromotional: true,
            isNameCustomized: false,
            isPriceCustomized: true,
            createdAt: ms(pkg.created_at),
            updatedAt: ms(pkg.updated_at),
          },
          operator: {
            id: DEMO.operators.mock,
            slug: 'mock',
            nameEn: 'Mock Telecom',
            nameAr: 'الاتصالات التجريبية',
            isActive: true,
            logoUrl: 'https://cdn.example/mock.png',
            createdAt: ms(op.created_at),
            updatedAt: ms(op.updated_at),
          },
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
    const text = JSON.stringify(res.body);
    for (const secret of [
      'apiConfig',
      'apiBaseUrl',
      'api_config',
      OPERATOR_SECRET,
      OPERATOR_API_BASE,
      'phoneHash',
      'emailHash',
      'Encrypted',
      'idNumber',
      'a'.repeat(64),
      'secret-id-number',
      'iccidSuffix',
      'kind',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('decimal money always has two decimals; null e-mail and phone stay null', async () => {
    const admin = await superAdmin();
    const owner = await signUp(t, { email: `only-${Date.now()}@example.com` });
    await insertActivation(t, {
      userId: owner.userId,
      packageId: DEMO.packages.plus,
      createdAt: '2030-02-01T00:00:00.000Z',
      order: { totalAmountSar: '99' },
      orderItem: { unitPriceSar: '85.5' },
    });
    const res = await records(admin.token, { from: '2030-02-01T00:00:00.000Z', to: '2030-02-01T00:00:00.000Z' });
    const [item] = res.body.items;
    expect(item.order.totalAmountSar).toBe('99.00');
    expect(item.orderItem.unitPriceSar).toBe('85.50');
    expect(item.package).toMatchObject({ priceSar: '99.00', priceSarB2b: '85.50' });
    expect(item.user).toEqual({ id: owner.userId, name: 'Sara', email: owner.email, phone: null });
  });

  describe('filters and paging', () => {
    let admin: { token: string };
    const rows: Record<string, string> = {};
    beforeAll(async () => {
      admin = await superAdmin();
      const u1 = await signUp(t);
      const u2 = await signUp(t);
      const add = async (key: string, f: Parameters<typeof insertActivation>[1]) => {
        rows[key] = (await insertActivation(t, f)).activationId;
      };
      await add('a', { userId: u1.userId, status: 'pending', createdAt: '2031-01-01T00:00:00.000Z' });
      await add('b', { userId: u1.userId, status: 'activated', createdAt: '2031-01-02T00:00:00.000Z', packageId: DEMO.packages.plus });
      await add('c', { userId: u2.userId, status: 'failed', createdAt: '2031-01-03T00:00:00.000Z', packageId: DEMO.packages.basic });
      await add('d', {
        userId: u2.userId,
        status: 'pending',
        createdAt: '2031-01-04T00:00:00.000Z',
        deletedAt: '2031-02-01T00:00:00.000Z',
      });
      await add('e', { userId: u2.userId, status: 'cancelled', createdAt: '2031-01-05T00:00:00.000Z' });
    });
    const window = { from: '2031-01-01T00:00:00.000Z', to: '2031-12-31T00:00:00.000Z' };
    const expectRows = async (query: Record<string, string | number>, keys: string[]) => {
      const res = await records(admin.token, { ...window, ...query });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(keys.map((k) => rows[k]));
    };

    it('lists newest first and leaves soft-deleted rows out unless includeDeleted=true', async () => {
      await expectRows({}, ['e', 'c', 'b', 'a']);
      await expectRows({ includeDeleted: 'false' }, ['e', 'c', 'b', 'a']);
      await expectRows({ includeDeleted: 'true' }, ['e', 'd', 'c', 'b', 'a']);
      const res = await records(admin.token, { ...window, includeDeleted: 'true' });
      expect(res.body.items[1].deletedAt).toBe('2031-02-01T00:00:00.000Z');
    });

    it('filters by status, operatorId and packageId', async () => {
      await expectRows({ status: 'pending' }, ['a']);
      await expectRows({ status: 'pending', includeDeleted: 'true' }, ['d', 'a']);
      await expectRows({ status: 'activated' }, ['b']);
      await expectRows({ operatorId: DEMO.operators.mockNoEsim }, ['c']);
      await expectRows({ operatorId: DEMO.operators.mock }, ['e', 'b', 'a']);
      await expectRows({ packageId: DEMO.packages.plus }, ['b']);
      await expectRows({ packageId: DEMO.packages.starter, status: 'cancelled' }, ['e']);
      await expectRows({ operatorId: '7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e' }, []);
    });

    it('treats from and to as inclusive bounds', async () => {
      await expectRows({ from: '2031-01-02T00:00:00.000Z', to: '2031-01-03T00:00:00.000Z' }, ['c', 'b']);
      await expectRows({ from: '2031-01-02T00:00:00.001Z', to: '2031-01-02T23:59:59.999Z' }, []);
      await expectRows({ from: '2031-01-05T00:00:00.000Z', to: '2031-01-05T00:00:00.000Z' }, ['e']);
      await expectRows({ from: '2031-01-05T03:00:00+03:00', to: '2031-01-05T03:00:00+03:00' }, ['e']);
    });

    it('pages with the same cursor format, filters kept', async () => {
      const first = await records(admin.token, { ...window, limit: 2, includeDeleted: 'true' });
      expect([ids(first), first.body.hasMore]).toEqual([[rows.e, rows.d], true]);
      expect(first.body.nextCursor).toBe(`2031-01-04T00:00:00.000Z|${rows.d}`);
      // Both cursors were just checked to be set.
      const second = await records(admin.token, { ...window, limit: 2, includeDeleted: 'true', cursor: first.body.nextCursor! });
      expect([ids(second), second.body.hasMore]).toEqual([[rows.c, rows.b], true]);
      const third = await records(admin.token, { ...window, limit: 2, includeDeleted: 'true', cursor: second.body.nextCursor! });
      expect([ids(third), third.body.hasMore, third.body.nextCursor]).toEqual([[rows.a], false, null]);
      // Without deleted rows, a cursor on a deleted row still continues after it.
      const rest = await records(admin.token, { ...window, cursor: first.body.nextCursor! });
      expect(ids(rest)).toEqual([rows.c, rows.b, rows.a]);
    });

    it.each([
      [{ to: '2031-01-01T00:00:00.000Z', from: '2031-01-02T00:00:00.000Z' }, 'to'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2031-01-01' }, 'to'],
      [{ operatorId: 'mock' }, 'operatorId'],
      [{ packageId: '123' }, 'packageId'],
      [{ status: 'done' }, 'status'],
      [{ includeDeleted: 'yes' }, 'includeDeleted'],
      [{ includeDeleted: '1' }, 'includeDeleted'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: 'abc' }, 'limit'],
      [{ cursor: 'nope' }, 'cursor'],
      // Offsets PostgreSQL refuses (beyond ±15:59; none in use beyond ±14:00) and years outside 1000-9999.
      [{ to: '3525-08-18T23:32:54+17:10' }, 'to'],
      [{ from: '2031-01-01T00:00:00+14:01' }, 'from'],
      [{ from: '0000-01-01T00:00:00Z' }, 'from'],
    ])('rejects %j with VALIDATION_ERROR on %s', async (query, path) => {
      const res = await records(admin.token, query);
      expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(errorOf(res).details).toEqual([{ path, message: match.any(String) }]);
    });

    it('takes bounds with an offset, compared as instants', async () => {
      const res = await records(admin.token, { from: '2000-01-01T03:00:00+03:00', to: '9999-12-31T23:59:59-14:00' });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeGreaterThan(0);
    });

    it('uses a default page size of 20 and accepts 100', async () => {
      const res = await records(admin.token, {});
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(20);
      const total = (await t.db.query<{ n: number }>('select count(*)::int as n from activations where deleted_at is null'))[0].n;
      expect(res.body.items).toHaveLength(Math.min(20, total));
      expect(res.body.hasMore).toBe(total > 20);
      expect((await records(admin.token, { limit: 100 })).body.items).toHaveLength(Math.min(100, total));
    });
  });
});

describe('OpenAPI', () => {
  it('documents the read routes with their errors', async () => {
    const res = typed<{
      paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>>;
    }>(await request(app).get('/openapi.json'));
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    for (const path of [
      '/activations/history',
      '/activations/records',
      '/activations/{id}/esim-qr',
      '/activations/{id}/status',
      '/operators',
    ]) {
      expect(paths[path]?.get).toBeDefined();
    }
    const responses = (path: string) => Object.keys(paths[path].get.responses).sort();
    expect(responses('/activations/history')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(responses('/activations/records')).toEqual(['200', '400', '401', '403', '422', '429', '500', '503']);
    expect(responses('/activations/{id}/status')).toEqual(['200', '401', '403', '404', '422', '429', '500', '503']);
    expect(responses('/activations/{id}/esim-qr')).toEqual(['200', '401', '403', '404', '422', '429', '500', '503']);
    expect(responses('/operators')).toEqual(['200', '429', '500', '503']);
    expect(
      paths['/activations/records'].get
        .parameters!.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['cursor', 'from', 'includeDeleted', 'limit', 'operatorId', 'packageId', 'status', 'to']);
    expect(paths['/activations/{id}/esim-qr'].get.responses['200']).toMatchObject({ content: { 'image/png': match.any(Object) } });
  });
});
