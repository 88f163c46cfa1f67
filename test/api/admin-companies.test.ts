import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { AdminCompanyList, CompanyResponse } from '../../src/companies/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { AppError } from '../../src/http/errors';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { companyAdmin, companyPerson, fakeCompanyRuns, newCrNumber, signInAs, type Caller } from '../helpers/company-routes';
import { errorOf, typed } from '../helpers/responses';

// Internal administration of companies (spec "Admin: companies"): the list and one company need
// the b2b area's View, a status action its Manage; role first, then area, read fresh per request.
let t: TestApp;
const runs = fakeCompanyRuns(() => t.db);
let manager: Caller;
let viewer: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs } });
  manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
});
afterAll(() => t.close());

type List = z.infer<typeof AdminCompanyList>;
type One = z.infer<typeof CompanyResponse>;
const list = async (query: Record<string, string | number> = {}, token = viewer.token, lang?: string) => {
  const req = request(t.app).get('/admin/companies').query(query).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<List>(await req);
};
const getOne = async (id: string, token = viewer.token, lang?: string) => {
  const req = request(t.app).get(`/admin/companies/${id}`);
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<One>(await req);
};
const act = async (id: string, body: object, token = manager.token, lang?: string) => {
  const req = request(t.app).post(`/admin/companies/${id}/status`);
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<One>(await req.send(body));
};
const statusOf = async (id: string) => (await t.db.query<{ status: string }>('select status from companies where id = $1', [id]))[0].status;

/** A company registered a second after the previous one, named as asked, in `status`. */
async function company(name: string, status: 'pending' | 'approved' | 'rejected' | 'suspended' = 'pending', crNumber = newCrNumber()) {
  t.clock.advance(1000);
  return companyAdmin(t, status, { name, crNumber, inKsa: /^\d{10}$/.test(crNumber) });
}

describe('GET /admin/companies', () => {
  // Names carry a token of this block, so a search sees only its companies.
  const tag = `zq${process.pid}`;
  let rows: { companyId: string; name: string }[];
  beforeAll(async () => {
    rows = [];
    for (const [name, status, cr] of [
      [`${tag} Alpha Trading`, 'pending', newCrNumber()],
      [`${tag} Beta 100% Pure`, 'approved', `${tag}-CR-A`],
      [`${tag} gamma_works`, 'approved', newCrNumber()],
      [`${tag} Delta`, 'suspended', `${tag}-cr_b`],
      [`${tag} Epsilon`, 'rejected', newCrNumber()],
    ] as const) {
      rows.push({ companyId: (await company(name, status, cr)).companyId, name });
    }
  });
  const ids = (res: { body: List }) => res.body.data.companies.map((c) => c.id);
  const mine = (n: number[]) => n.map((i) => rows[i].companyId);

  it('lists companies newest first with the total, page and limit; contact data decrypted', async () => {
    const res = await list({ search: tag });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(mine([4, 3, 2, 1, 0]));
    expect(res.body.data).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(res.body.data.companies[0]).toMatchObject({
      name: `${tag} Epsilon`,
      status: 'rejected',
      contactEmail: 'sara@acme.example',
      contactPhone: '+447700900123',
      paymentMode: null,
    });
    const all = await list({ limit: 100 });
    expect(all.body.data.total).toBeGreaterThanOrEqual(5);
    const created = all.body.data.companies.map((c) => c.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('pages with page and limit', async () => {
    const second = await list({ search: tag, page: 2, limit: 2 });
    expect([ids(second), second.body.data.total, second.body.data.page, second.body.data.limit]).toEqual([mine([2, 1]), 5, 2, 2]);
    const past = await list({ search: tag, page: 4, limit: 2 });
    expect([ids(past), past.body.data.total]).toEqual([[], 5]);
  });

  it('filters by status', async () => {
    expect(ids(await list({ search: tag, status: 'approved' }))).toEqual(mine([2, 1]));
    expect(ids(await list({ search: tag, status: 'pending' }))).toEqual(mine([0]));
    const suspended = await list({ search: tag, status: 'suspended' });
    expect([ids(suspended), suspended.body.data.total]).toEqual([mine([3]), 1]);
  });

  it('searches a case-insensitive substring of the name or the CR number; % and _ match only themselves', async () => {
    expect(ids(await list({ search: `${tag} ALPHA` }))).toEqual(mine([0]));
    expect(ids(await list({ search: `${tag}-cr-a` }))).toEqual(mine([1]));
    expect(ids(await list({ search: `${tag}-CR` }))).toEqual(mine([3, 1]));
    expect(ids(await list({ search: '100%' }))).toEqual(mine([1]));
    expect(ids(await list({ search: `${tag} % P` }))).toEqual([]);
    expect(ids(await list({ search: 'a_w' }))).toEqual(mine([2]));
    expect(ids(await list({ search: `${tag}-cr_` }))).toEqual(mine([3]));
    expect(ids(await list({ search: `${tag} _lpha` }))).toEqual([]);
    expect(ids(await list({ search: `  ${tag} delta  ` }))).toEqual(mine([3]));
    expect((await list({ search: 'no-such-company-anywhere' })).body.data).toMatchObject({ companies: [], total: 0 });
    const backslash = await list({ search: '\\' });
    expect(backslash.status).toBe(200);
  });

  it('takes an empty search as no filter', async () => {
    const res = await list({ search: '', limit: 100 });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expect.arrayContaining(mine([0, 1, 2, 3, 4])));
  });

  it.each([
    ['limit', { limit: 0 }],
    ['limit', { limit: 101 }],
    ['limit', { limit: 'ten' }],
    ['page', { page: 0 }],
    ['page', { page: 10001 }],
    ['status', { status: 'archived' }],
    ['search', { search: 's'.repeat(256) }],
    ['companyId', { companyId: randomUUID() }],
  ])('refuses a bad %s: VALIDATION_ERROR', async (path, query) => {
    const res = await list(query);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<{ path: string }[]>(res).details.map((d) => d.path)).toEqual([path]);
  });

  it('answers VALIDATION_ERROR in both languages', async () => {
    expect(errorOf(await list({ limit: 0 }, viewer.token, 'ar')).message).toBe(errorCodes.VALIDATION_ERROR.ar);
    expect(errorOf(await list({ limit: 0 }, viewer.token, 'en')).message).toBe(errorCodes.VALIDATION_ERROR.en);
  });
});

describe('GET /admin/companies/:id', () => {
  it('answers the company', async () => {
    const admin = await company('Zeta Holdings', 'approved');
    const res = await getOne(admin.companyId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: admin.companyId, name: 'Zeta Holdings', status: 'approved', contactName: 'Sara Ali' });
    // The same view as the portal's own read.
    const portal = await request(t.app).get('/b2b/company').set(bearer(admin.token));
    expect((portal.body as { data: { company: unknown } }).data.company).toEqual(res.body.data);
  });

  it('answers COMPANY_NOT_FOUND for an unknown id, in both languages; a malformed id is a VALIDATION_ERROR', async () => {
    const unknown = await getOne(randomUUID());
    expect([unknown.status, errorCode(unknown), errorOf(unknown).message]).toEqual([
      404,
      'COMPANY_NOT_FOUND',
      errorCodes.COMPANY_NOT_FOUND.en,
    ]);
    expect(errorOf(await getOne(randomUUID(), viewer.token, 'ar')).message).toBe(errorCodes.COMPANY_NOT_FOUND.ar);
    const malformed = await getOne('not-a-uuid');
    expect([malformed.status, errorCode(malformed)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<{ path: string }[]>(malformed).details.map((d) => d.path)).toEqual(['id']);
  });
});

describe('POST /admin/companies/:id/status', () => {
  it('approves a pending company through its run: stamps approvedBy and approvedAt, answers the company re-read', async () => {
    const { companyId } = await company('Eta Approve');
    const before = runs.statusCalls.length;
    const res = await request(t.app)
      .post(`/admin/companies/${companyId}/status`)
      .set(bearer(manager.token))
      .set('User-Agent', 'admin-console')
      .send({ action: 'approve', reason: '  documents checked  ' });
    expect(res.status).toBe(200);
    const body = res.body as One;
    expect(body.data).toMatchObject({ id: companyId, status: 'approved', approvedBy: manager.userId });
    expect(body.data.approvedAt).toEqual(expect.any(String));
    expect(runs.statusCalls.slice(before)).toEqual([
      {
        companyId,
        request: {
          action: 'approve',
          actorUserId: manager.userId,
          reason: 'documents checked',
          ip: expect.stringMatching(/127\.0\.0\.1/) as string,
          userAgent: 'admin-console',
        },
      },
    ]);
    expect((await getOne(companyId)).body).toEqual(body);
  });

  it('walks the table: reject a pending one; suspend, then reactivate an approved one (no re-stamp); reason optional', async () => {
    const rejected = await company('Theta Reject');
    expect((await act(rejected.companyId, { action: 'reject' })).body.data.status).toBe('rejected');
    expect(runs.statusCalls.at(-1)?.request.reason).toBeNull();

    const approved = await company('Iota Suspend');
    const first = await act(approved.companyId, { action: 'approve' });
    const suspended = await act(approved.companyId, { action: 'suspend', reason: 'unpaid' });
    expect(suspended.body.data.status).toBe('suspended');
    const other = await signInAs(t, 'super_admin');
    const back = await act(approved.companyId, { action: 'reactivate', reason: '' }, other.token);
    expect(back.body.data).toMatchObject({ status: 'approved', approvedBy: manager.userId, approvedAt: first.body.data.approvedAt });
    expect(runs.statusCalls.at(-1)?.request).toMatchObject({ actorUserId: other.userId, reason: null });
  });

  it.each([
    ['pending', 'suspend'],
    ['pending', 'reactivate'],
    ['approved', 'approve'],
    ['approved', 'reject'],
    ['approved', 'reactivate'],
    ['suspended', 'approve'],
    ['suspended', 'suspend'],
    ['rejected', 'approve'],
    ['rejected', 'reactivate'],
  ] as const)('refuses %s → %s: COMPANY_INVALID_TRANSITION with { from, action }, nothing written', async (from, action) => {
    const { companyId } = await company(`Kappa ${from} ${action}`, from);
    const res = await act(companyId, { action });
    expect([res.status, errorCode(res), errorOf(res).details]).toEqual([409, 'COMPANY_INVALID_TRANSITION', { from, action }]);
    expect(await statusOf(companyId)).toBe(from);
  });

  it('answers COMPANY_INVALID_TRANSITION in both languages', async () => {
    const { companyId } = await company('Lambda', 'approved');
    const ar = await act(companyId, { action: 'approve' }, manager.token, 'ar');
    expect([ar.status, errorOf(ar).message]).toEqual([409, errorCodes.COMPANY_INVALID_TRANSITION.ar]);
    const en = await act(companyId, { action: 'approve' }, manager.token, 'en');
    expect(errorOf(en).message).toBe(errorCodes.COMPANY_INVALID_TRANSITION.en);
  });

  it('two administrators approving at once: one 200, one COMPANY_INVALID_TRANSITION', async () => {
    const { companyId } = await company('Mu Race');
    const other = await signInAs(t, 'super_admin');
    const answers = await Promise.all([act(companyId, { action: 'approve' }), act(companyId, { action: 'approve' }, other.token)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await statusOf(companyId)).toBe('approved');
  });

  it('answers COMPANY_NOT_FOUND for an unknown id (both languages) without asking the run; a malformed id is a VALIDATION_ERROR', async () => {
    const before = runs.statusCalls.length;
    const res = await act(randomUUID(), { action: 'approve' });
    expect([res.status, errorCode(res)]).toEqual([404, 'COMPANY_NOT_FOUND']);
    expect(errorOf(await act(randomUUID(), { action: 'approve' }, manager.token, 'ar')).message).toBe(errorCodes.COMPANY_NOT_FOUND.ar);
    const malformed = await act('42', { action: 'approve' });
    expect([malformed.status, errorCode(malformed)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(runs.statusCalls.length).toBe(before);
  });

  it.each([
    ['action', {}],
    ['action', { action: 'archive' }],
    ['action', { action: 'APPROVE' }],
    ['reason', { action: 'approve', reason: 'r'.repeat(501) }],
    ['reason', { action: 'approve', reason: 42 }],
    ['note', { action: 'approve', note: 'x' }],
  ])('refuses a bad %s: VALIDATION_ERROR, nothing asked of the run', async (path, body) => {
    const { companyId } = await company(`Nu ${path}`);
    const before = runs.statusCalls.length;
    const res = await act(companyId, body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<{ path: string }[]>(res).details.map((d) => d.path)).toEqual([path]);
    expect(runs.statusCalls.length).toBe(before);
    expect(await statusOf(companyId)).toBe('pending');
  });

  it('takes a reason of 500 characters', async () => {
    const { companyId } = await company('Xi Reason');
    const res = await act(companyId, { action: 'reject', reason: 'ر'.repeat(500) });
    expect(res.status).toBe(200);
    expect(runs.statusCalls.at(-1)?.request.reason).toBe('ر'.repeat(500));
  });

  it('answers SERVICE_UNAVAILABLE when the run does not answer in time, and the company as it is', async () => {
    const { companyId } = await company('Omicron Timeout');
    runs.failNextStatusChange(new AppError('SERVICE_UNAVAILABLE'));
    const res = await act(companyId, { action: 'approve' });
    expect([res.status, errorCode(res)]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await statusOf(companyId)).toBe('pending');
  });
});

describe('guards: role first, then the b2b area (View for reads, Manage for status)', () => {
  let target: string;
  let outsiders: Record<string, Caller>;
  beforeAll(async () => {
    const owner = await company('Pi Guarded', 'approved');
    target = owner.companyId;
    const pending = await company('Pi Pending', 'pending');
    const suspended = await company('Pi Suspended', 'suspended');
    const rejected = await company('Pi Rejected', 'rejected');
    outsiders = {
      end_user: await signInAs(t, 'end_user'),
      'b2b_admin without a company': await signInAs(t, 'b2b_admin'),
      'company member': await companyPerson(t, target, 'member'),
      'admin of an approved company': owner,
      'admin of a pending company': pending,
      'admin of a suspended company': suspended,
      'admin of a rejected company': rejected,
      'admin without the area': await signInAs(t, 'admin', { view: [], manage: [] }),
      'admin with another area': await signInAs(t, 'admin', { view: ['store'], manage: ['store'] }),
      support: await signInAs(t, 'support'),
      activation_officer: await signInAs(t, 'activation_officer'),
    };
  });
  const reads = () => [(token?: string) => list({}, token), (token?: string) => getOne(target, token)];

  it('no session: AUTH_REQUIRED on every route', async () => {
    const anonymous = await request(t.app).get('/admin/companies');
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
    // An empty token sends no Authorization header (undefined would take the default caller).
    expect(errorCode(await getOne(target, ''))).toBe('AUTH_REQUIRED');
    expect(errorCode(await act(target, { action: 'suspend' }, ''))).toBe('AUTH_REQUIRED');
  });

  it('every role but admin staff and super_admin: AUTH_FORBIDDEN on every route (b2b_admin holds b2b but is no staff)', async () => {
    await t.db.query(`update users set managed_areas = '{b2b}', managed_areas_write = '{b2b}' where id = $1`, [
      outsiders['admin of an approved company'].userId,
    ]);
    for (const [who, caller] of Object.entries(outsiders)) {
      for (const read of reads()) {
        const res = await read(caller.token);
        expect([who, res.status, errorCode(res)]).toEqual([who, 403, 'AUTH_FORBIDDEN']);
      }
      const res = await act(target, { action: 'suspend' }, caller.token);
      expect([who, res.status, errorCode(res)]).toEqual([who, 403, 'AUTH_FORBIDDEN']);
    }
    expect(await statusOf(target)).toBe('approved');
  });

  it('admin with View only: reads, but no status action (AUTH_FORBIDDEN, both languages)', async () => {
    for (const read of reads()) expect((await read(viewer.token)).status).toBe(200);
    const res = await act(target, { action: 'suspend' }, viewer.token, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN.ar]);
    expect(errorOf(await act(target, { action: 'suspend' }, viewer.token)).message).toBe(errorCodes.AUTH_FORBIDDEN.en);
    expect(await statusOf(target)).toBe('approved');
  });

  it('admin with Manage but not View: the status action, not the reads', async () => {
    const writer = await signInAs(t, 'admin', { view: [], manage: ['b2b'] });
    for (const read of reads()) expect(errorCode(await read(writer.token))).toBe('AUTH_FORBIDDEN');
    const { companyId } = await company('Rho Writer');
    expect((await act(companyId, { action: 'approve' }, writer.token)).status).toBe(200);
  });

  it('admin with View and Manage, and super_admin: every route', async () => {
    const root = await signInAs(t, 'super_admin');
    for (const caller of [manager, root]) {
      for (const read of reads()) expect((await read(caller.token)).status).toBe(200);
      const { companyId } = await company('Sigma Both');
      expect((await act(companyId, { action: 'approve' }, caller.token)).status).toBe(200);
    }
  });

  it('areas are read on each request: taking View away refuses the next read', async () => {
    const staff = await signInAs(t, 'admin', { view: ['b2b'] });
    expect((await list({}, staff.token)).status).toBe(200);
    await t.db.query(`update users set managed_areas = '{}' where id = $1`, [staff.userId]);
    expect(errorCode(await list({}, staff.token))).toBe('AUTH_FORBIDDEN');
  });
});
