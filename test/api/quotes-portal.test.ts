import { randomUUID } from 'node:crypto';
import { errorCodes } from '../../src/http/error-codes';
import { AppError } from '../../src/http/errors';
import { quoteRef } from '../../workflows/contracts/quote-contract';
import { createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { call, ISO, type ChainListBody, type DetailBody } from '../helpers/quote-api';
import { fakeQuoteRuns, insertQuoteVersion } from '../helpers/quote-runs';
import { errorOf } from '../helpers/responses';
import { rosterCaller } from '../helpers/roster';

// The company's quotes (spec "Portal: catalog and quotes", "Quote version", "Quote status"): create,
// patch, list, detail, submit, accept and reject, on real Postgres with the fake run doing the real SQL.
let t: TestApp;
const runs = fakeQuoteRuns(() => t.db, { clock: () => t.clock() });
let pkg: { a: string; b: string; c: string; noPrice: string; inactive: string };
beforeAll(async () => {
  t = await createTestApp({ deps: { quoteRuns: runs } });
  pkg = {
    a: await insertPackage(t.db, { priceSarB2b: '49.50' }),
    b: await insertPackage(t.db, { priceSarB2b: '80.00' }),
    c: await insertPackage(t.db, { priceSarB2b: '12.34' }),
    noPrice: await insertPackage(t.db, { priceSarB2b: null }),
    inactive: await insertPackage(t.db, { isActive: false }),
  };
});
afterAll(() => t.close());

type Caller = Awaited<ReturnType<typeof rosterCaller>>;
const create = (c: Caller, body: unknown, lang?: string) => call<DetailBody>(t, 'post', '/b2b/quotes', { token: c.token, body, lang });
const patch = (c: Caller, id: string, body: unknown, lang?: string) =>
  call<DetailBody>(t, 'patch', `/b2b/quotes/${id}`, { token: c.token, body, lang });
const get = (c: Caller, id: string, lang?: string) => call<DetailBody>(t, 'get', `/b2b/quotes/${id}`, { token: c.token, lang });
const list = (c: Caller, query: object = {}) => call<ChainListBody>(t, 'get', '/b2b/quotes', { token: c.token, query });
const act = (c: Caller, id: string, action: 'submit' | 'accept' | 'reject', body?: unknown, lang?: string) =>
  call<DetailBody>(t, 'post', `/b2b/quotes/${id}/${action}`, { token: c.token, body, lang });
const issuePaths = (res: { body?: unknown }) => (errorOf<{ path: string }[]>(res).details ?? []).map((d) => d.path).sort();
const versionsOf = async (companyId: string) =>
  (await t.db.query<{ n: number }>('select count(*)::int as n from quote_versions where company_id = $1', [companyId]))[0].n;

/** A draft made through the route. */
async function draft(c: Caller, body: object = { items: [{ packageId: pkg.a, qty: 2 }] }) {
  const res = await create(c, body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

describe('POST /b2b/quotes', () => {
  it('creates a draft chain (version 1, its own root) with needs and lines in the order sent, and starts its run', async () => {
    const admin = await rosterCaller(t);
    const body = {
      needs: { userCount: 25, preference: 'data', budgetSar: 5000.5, fundingSar: 12000.07 },
      items: [
        { packageId: pkg.c, qty: 10000 },
        { packageId: pkg.a, qty: 1 },
        { packageId: pkg.b, qty: 7 },
      ],
    };
    const res = await create(admin, body);
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toEqual({
      id: d.id,
      companyId: admin.companyId,
      version: 1,
      parentId: null,
      needs: { userCount: 25, preference: 'data', budgetSar: 5000.5, fundingSar: 12000.07 },
      status: 'draft',
      note: null,
      companyNote: null,
      reviewedBy: null,
      reviewedAt: null,
      createdBy: admin.userId,
      createdAt: t.clock().toISOString(),
      updatedAt: t.clock().toISOString(),
      items: body.items.map((i) => ({ id: expect.any(String) as string, ...i })),
      versions: [{ id: d.id, version: 1, status: 'draft', createdAt: d.createdAt }],
    });
    expect(res.text).toContain('"budgetSar":5000.5');
    const [row] = await t.db.query<Record<string, unknown>>(
      'select chain_root_id, needs_budget_halalas::int as budget, needs_funding_halalas::int as funding from quote_versions where id = $1',
      [d.id],
    );
    expect(row).toEqual({ chain_root_id: d.id, budget: 500050, funding: 1200007 });
    expect(runs.started.at(-1)).toEqual({
      chainRootId: d.id,
      companyId: admin.companyId,
      tip: { versionId: d.id, version: 1, status: 'draft', companyAuthored: true },
    });
  });

  it.each([
    ['no needs', undefined, {}],
    ['empty needs', {}, {}],
    ['the trio alone', { userCount: 3, preference: 'minutes', budgetSar: 10 }, { userCount: 3, preference: 'minutes', budgetSar: 10 }],
    ['fundingSar alone', { fundingSar: 99999999.99 }, { fundingSar: 99999999.99 }],
  ])('answers needs as declared, absent keys left out (%s)', async (_label, needs, expected) => {
    const admin = await rosterCaller(t);
    const res = await create(admin, { needs, items: [] });
    expect([res.status, res.body.data.needs, res.body.data.items]).toEqual([201, expected, []]);
  });

  it('refuses invalid bodies with VALIDATION_ERROR naming each field, and writes nothing', async () => {
    const admin = await rosterCaller(t);
    const line = { packageId: pkg.a, qty: 1 };
    const cases: [unknown, string[]][] = [
      [{}, ['items']],
      [{ items: [line], needs: { userCount: 2 } }, ['needs.budgetSar', 'needs.preference']],
      [{ items: [line], needs: { preference: 'data', budgetSar: 5, fundingSar: 1 } }, ['needs.userCount']],
      [{ items: [line], needs: { fundingSar: 100000000 } }, ['needs.fundingSar']],
      [{ items: [line], needs: { fundingSar: 1.005 } }, ['needs.fundingSar']],
      [{ items: [line], needs: { fundingSar: 0 } }, ['needs.fundingSar']],
      [{ items: [line], needs: { userCount: 0, preference: 'data', budgetSar: 5 } }, ['needs.userCount']],
      [{ items: [line], needs: { userCount: 1, preference: 'voice', budgetSar: 5 } }, ['needs.preference']],
      [{ items: [{ packageId: pkg.a, qty: 0 }] }, ['items.0.qty']],
      [{ items: [{ packageId: pkg.a, qty: 10001 }] }, ['items.0.qty']],
      [{ items: [{ packageId: pkg.a, qty: 1.5 }] }, ['items.0.qty']],
      [{ items: [{ packageId: 'nope', qty: 1 }] }, ['items.0.packageId']],
      [{ items: [line, { packageId: pkg.a.toUpperCase(), qty: 2 }] }, ['items.1.packageId']],
      [{ items: Array.from({ length: 201 }, () => ({ packageId: randomUUID(), qty: 1 })) }, ['items']],
      [{ items: [{ ...line, price: 1 }] }, ['items.0.price']],
      [{ items: [line], companyId: admin.companyId }, ['companyId']],
    ];
    for (const [body, paths] of cases) {
      const res = await create(admin, body);
      expect([JSON.stringify(body).slice(0, 80), res.status, errorCode(res), issuePaths(res)]).toEqual([
        JSON.stringify(body).slice(0, 80),
        400,
        'VALIDATION_ERROR',
        paths,
      ]);
    }
    expect(await versionsOf(admin.companyId)).toBe(0);
  });

  it('accepts 200 lines of qty 10000', async () => {
    const admin = await rosterCaller(t);
    const ids = await Promise.all(Array.from({ length: 199 }, () => insertPackage(t.db)));
    const items = [pkg.a, ...ids].map((packageId) => ({ packageId, qty: 10000 }));
    const res = await create(admin, { items });
    expect([res.status, res.body.data.items.map((i) => i.packageId)]).toEqual([201, items.map((i) => i.packageId)]);
  });

  it('refuses packages outside the B2B catalog with QUOTE_PACKAGE_NOT_FOUND and details.packageIds, in both languages', async () => {
    const admin = await rosterCaller(t);
    const unknown = randomUUID();
    const items = [pkg.a, pkg.noPrice, unknown, pkg.inactive].map((packageId) => ({ packageId, qty: 1 }));
    for (const lang of ['en', 'ar'] as const) {
      const res = await create(admin, { items }, lang);
      expect([res.status, errorCode(res), errorOf(res).details, errorOf(res).message]).toEqual([
        400,
        'QUOTE_PACKAGE_NOT_FOUND',
        { packageIds: [pkg.noPrice, unknown, pkg.inactive] },
        errorCodes.QUOTE_PACKAGE_NOT_FOUND[lang],
      ]);
    }
    expect(await versionsOf(admin.companyId)).toBe(0);
  });

  // Issue 20: the draft and its run's pending start commit together; the create answers 201 either way.
  it('keeps the draft when the run cannot start: 201, its start pending for the relay', async () => {
    const admin = await rosterCaller(t);
    const started = runs.started.length;
    runs.failNextStart();
    const res = await create(admin, { needs: { fundingSar: 10 }, items: [{ packageId: pkg.a, qty: 1 }] });
    expect(res.status).toBe(201);
    expect(await versionsOf(admin.companyId)).toBe(1);
    expect(runs.started.length).toBe(started);
    const [start] = await t.db.query<{ started_at: unknown }>('select started_at from workflow_starts where workflow_id = $1', [
      `quote:${res.body.data.id}`,
    ]);
    expect(start).toEqual({ started_at: null });
  });

  it('is for company admins of an approved company: a member gets AUTH_FORBIDDEN, an unapproved company its code', async () => {
    const member = await rosterCaller(t, 'approved', 'member');
    const body = { items: [{ packageId: pkg.a, qty: 1 }] };
    const refused = await create(member, body, 'ar');
    expect([refused.status, errorCode(refused), errorOf(refused).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN.ar]);
    for (const [status, code] of [
      ['pending', 'COMPANY_NOT_APPROVED'],
      ['suspended', 'COMPANY_SUSPENDED'],
      ['rejected', 'COMPANY_REJECTED'],
    ] as const) {
      const c = await rosterCaller(t, status);
      expect([status, errorCode(await create(c, body))]).toEqual([status, code]);
    }
    expect(await versionsOf(member.companyId)).toBe(0);
  });
});

describe('money in POST and PATCH /b2b/quotes', () => {
  // Spec: "fundingSar positive, at most 99999999.99"; issue 20: "Any amount with more than two decimals
  // is VALIDATION_ERROR, whatever its size, and positivity is checked on the value as sent".
  const refused: [string, number][] = [
    ['0.001', 0.001],
    ['1e-7', 1e-7],
    ['1e-8 (was stored as 0)', 1e-8],
    ['5e-324 (the smallest positive double)', Number.MIN_VALUE],
    ['5000.005', 5000.005],
    ['99999999.994', 99999999.994],
    ['0.30000000000000004', 0.1 + 0.2],
  ];

  it.each(refused)('POST refuses fundingSar and budgetSar %s with VALIDATION_ERROR and writes nothing', async (_label, amount) => {
    const admin = await rosterCaller(t);
    const line = { packageId: pkg.a, qty: 1 };
    for (const [needs, path] of [
      [{ fundingSar: amount }, 'needs.fundingSar'],
      [{ userCount: 2, preference: 'data', budgetSar: amount }, 'needs.budgetSar'],
    ] as const) {
      const res = await create(admin, { needs, items: [line] });
      expect([res.status, errorCode(res), [...new Set(issuePaths(res))]]).toEqual([400, 'VALIDATION_ERROR', [path]]);
    }
    expect(await versionsOf(admin.companyId)).toBe(0);
  });

  it.each(refused)('PATCH refuses fundingSar %s with VALIDATION_ERROR and leaves the draft as it was', async (_label, amount) => {
    const admin = await rosterCaller(t);
    const d = await draft(admin, { needs: { fundingSar: 5000.01 }, items: [] });
    const res = await patch(admin, d.id, { needs: { fundingSar: amount }, items: [] });
    expect([res.status, errorCode(res), [...new Set(issuePaths(res))]]).toEqual([400, 'VALIDATION_ERROR', ['needs.fundingSar']]);
    const [row] = await t.db.query<{ funding: number | null }>(
      'select needs_funding_halalas::int as funding from quote_versions where id = $1',
      [d.id],
    );
    expect(row).toEqual({ funding: 500001 });
    expect((await get(admin, d.id)).body.data.needs).toEqual({ fundingSar: 5000.01 });
  });
});

describe('PATCH /b2b/quotes/:id', () => {
  it('replaces the needs and the lines wholesale, stamping updatedAt', async () => {
    const admin = await rosterCaller(t);
    const d = await draft(admin, { needs: { userCount: 5, preference: 'mixed', budgetSar: 100 }, items: [{ packageId: pkg.a, qty: 2 }] });
    t.clock.advance(60_000);
    const res = await patch(admin, d.id, {
      needs: { fundingSar: 250.25 },
      items: [
        { packageId: pkg.b, qty: 3 },
        { packageId: pkg.c, qty: 4 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: d.id, version: 1, status: 'draft', needs: { fundingSar: 250.25 }, createdAt: d.createdAt });
    expect(res.body.data.updatedAt).toBe(t.clock().toISOString());
    expect(res.body.data.items.map((i) => [i.packageId, i.qty])).toEqual([
      [pkg.b, 3],
      [pkg.c, 4],
    ]);
    // Without needs the draft has none; lines may be emptied.
    const cleared = await patch(admin, d.id, { items: [] });
    expect([cleared.body.data.needs, cleared.body.data.items]).toEqual([{}, []]);
    expect(await t.db.query('select count(*)::int as n from quote_items where quote_version_id = $1', [d.id])).toEqual([{ n: 0 }]);
  });

  it('only a draft: QUOTE_INVALID_STATE afterwards; another company’s, unknown ids 404; a malformed id VALIDATION_ERROR', async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    const d = await draft(admin);
    const body = { items: [{ packageId: pkg.b, qty: 1 }] };
    expect(errorCode(await patch(other, d.id, body))).toBe('QUOTE_NOT_FOUND');
    expect(errorCode(await patch(admin, randomUUID(), body))).toBe('QUOTE_NOT_FOUND');
    const malformed = await patch(admin, 'not-a-uuid', body);
    expect([malformed.status, errorCode(malformed), issuePaths(malformed)]).toEqual([400, 'VALIDATION_ERROR', ['id']]);
    const outside = await patch(admin, d.id, { items: [{ packageId: pkg.noPrice, qty: 1 }] });
    expect([errorCode(outside), errorOf(outside).details]).toEqual(['QUOTE_PACKAGE_NOT_FOUND', { packageIds: [pkg.noPrice] }]);
    expect((await act(admin, d.id, 'submit')).status).toBe(200);
    const late = await patch(admin, d.id, body, 'ar');
    expect([late.status, errorCode(late), errorOf(late).message]).toEqual([409, 'QUOTE_INVALID_STATE', errorCodes.QUOTE_INVALID_STATE.ar]);
    expect((await get(admin, d.id)).body.data.items.map((i) => i.packageId)).toEqual([pkg.a]);
    const member = await rosterCaller(t, 'approved', 'member');
    expect(errorCode(await patch(member, d.id, body))).toBe('AUTH_FORBIDDEN');
  });
});

describe('GET /b2b/quotes/:id and GET /b2b/quotes', () => {
  it('answers any version of the company’s chains with its lines and the chain’s versions, to admins and members', async () => {
    const admin = await rosterCaller(t);
    const member = await rosterCaller(t, 'approved', 'member');
    await t.db.query('update company_users set company_id = $2 where user_id = $1', [member.userId, admin.companyId]);
    const root = await insertQuoteVersion(t.db, { companyId: admin.companyId, status: 'countered', items: [{ packageId: pkg.a, qty: 3 }] });
    const counter = await insertQuoteVersion(t.db, {
      companyId: admin.companyId,
      parent: root,
      status: 'under_review',
      items: [{ packageId: pkg.b, qty: 5 }],
      note: 'Best we can do',
    });
    for (const [id, version] of [
      [root.id, 1],
      [counter.id, 2],
    ] as const) {
      const res = await get(member, id);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, version, companyId: admin.companyId });
      expect(res.body.data.versions.map((v) => [v.id, v.version, v.status])).toEqual([
        [root.id, 1, 'countered'],
        [counter.id, 2, 'under_review'],
      ]);
      expect(res.body.data.versions[0].createdAt).toMatch(ISO);
    }
    expect((await get(admin, counter.id)).body.data).toMatchObject({
      parentId: root.id,
      note: 'Best we can do',
      items: [{ packageId: pkg.b, qty: 5 }],
    });
  });

  it('another company’s quote and an unknown id are QUOTE_NOT_FOUND (never 403), a malformed id VALIDATION_ERROR, in both languages', async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    const d = await draft(other);
    for (const lang of ['en', 'ar'] as const) {
      for (const id of [d.id, randomUUID()]) {
        const res = await get(admin, id, lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'QUOTE_NOT_FOUND', errorCodes.QUOTE_NOT_FOUND[lang]]);
      }
      const malformed = await get(admin, '12345', lang);
      expect([malformed.status, errorCode(malformed), errorOf(malformed).message]).toEqual([
        400,
        'VALIDATION_ERROR',
        errorCodes.VALIDATION_ERROR[lang],
      ]);
    }
  });

  it('the chain ref is display-only: it finds nothing, even the caller’s own quote', async () => {
    const admin = await rosterCaller(t);
    const d = await draft(admin);
    const ref = `Q-${d.id.replace(/-/g, '').slice(0, 12)}`;
    const res = await get(admin, ref, 'en');
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(JSON.stringify(res.body)).not.toContain(d.id);
  });

  it('lists one entry per chain, newest live version first, with ref, live and the older versions as history', async () => {
    const admin = await rosterCaller(t);
    const first = await draft(admin);
    t.clock.advance(1000);
    const second = await draft(admin, { needs: { fundingSar: 5 }, items: [] });
    t.clock.advance(1000);
    // The first chain gets a counter: its live version is now the newest.
    await t.db.query(`update quote_versions set status = 'countered' where id = $1`, [first.id]);
    const counter = await insertQuoteVersion(t.db, {
      companyId: admin.companyId,
      parent: { ...first, chainRootId: first.id, companyAuthored: true },
      status: 'under_review',
    });
    // Fixtures are stamped now(); the app's clock decides the order here.
    await t.db.query('update quote_versions set created_at = $2, updated_at = $2 where id = $1', [counter.id, t.clock()]);
    const other = await rosterCaller(t);
    await draft(other);

    const res = await list(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 2, page: 1, limit: 20 });
    const [a, b] = res.body.data.chains;
    expect([a.ref, a.live.id, a.live.status, a.history.map((v) => [v.id, v.status])]).toEqual([
      quoteRef(first.id),
      counter.id,
      'under_review',
      [[first.id, 'countered']],
    ]);
    expect(a.ref).toMatch(/^Q-[0-9a-f]{12}$/);
    expect([b.ref, b.live.id, b.live.needs, b.history]).toEqual([quoteRef(second.id), second.id, { fundingSar: 5 }, []]);
    expect(Object.keys(b.live).sort()).toEqual(
      Object.keys(first)
        .filter((k) => k !== 'items' && k !== 'versions')
        .sort(),
    );
  });

  it('filters on the live version’s status (countered never matches) and pages with total', async () => {
    const admin = await rosterCaller(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await draft(admin)).id);
      t.clock.advance(1000);
    }
    await act(admin, ids[0], 'submit');
    await act(admin, ids[3], 'submit');
    await t.db.query(`update quote_versions set status = 'countered' where id = $1`, [ids[4]]);
    await insertQuoteVersion(t.db, {
      companyId: admin.companyId,
      parent: { id: ids[4], chainRootId: ids[4], version: 1, companyAuthored: true, status: 'countered' },
      status: 'under_review',
    });

    const submitted = await list(admin, { status: 'submitted' });
    expect([submitted.body.data.total, submitted.body.data.chains.map((c) => c.live.id)]).toEqual([2, [ids[3], ids[0]]]);
    expect((await list(admin, { status: 'countered' })).body.data).toMatchObject({ total: 0, chains: [] });
    expect((await list(admin, { status: 'under_review' })).body.data.chains.map((c) => c.ref)).toEqual([quoteRef(ids[4])]);
    const page2 = await list(admin, { page: '2', limit: '2' });
    expect([page2.body.data.total, page2.body.data.page, page2.body.data.limit, page2.body.data.chains.length]).toEqual([5, 2, 2, 2]);
    const all = (await list(admin, { limit: '100' })).body.data.chains.map((c) => c.ref);
    expect(page2.body.data.chains.map((c) => c.ref)).toEqual(all.slice(2, 4));
    for (const query of [{ status: 'open' }, { limit: '0' }, { limit: '101' }, { page: '0' }, { companyId: admin.companyId }]) {
      expect([query, errorCode(await list(admin, query))]).toEqual([query, 'VALIDATION_ERROR']);
    }
  });
});

describe('POST /b2b/quotes/:id/submit, /accept, /reject', () => {
  it('submits a draft with lines, or with fundingSar and no lines; not an empty one or twice', async () => {
    const admin = await rosterCaller(t);
    const withLines = await draft(admin);
    t.clock.advance(5000);
    const res = await act(admin, withLines.id, 'submit');
    expect([res.status, res.body.data.status, res.body.data.updatedAt, res.body.data.versions]).toEqual([
      200,
      'submitted',
      t.clock().toISOString(),
      [{ id: withLines.id, version: 1, status: 'submitted', createdAt: withLines.createdAt }],
    ]);
    const call = runs.calls.at(-1)!;
    expect(call).toMatchObject({
      action: 'submit',
      chainRootId: withLines.id,
      request: { versionId: withLines.id, actor: { userId: admin.userId } },
    });
    expect(call.request.actor).not.toHaveProperty('requestId');
    expect(errorCode(await act(admin, withLines.id, 'submit'))).toBe('QUOTE_INVALID_STATE');

    const funded = await draft(admin, { needs: { fundingSar: 1000 }, items: [] });
    expect((await act(admin, funded.id, 'submit')).body.data.status).toBe('submitted');
    const empty = await draft(admin, { needs: { userCount: 1, preference: 'data', budgetSar: 1 }, items: [] });
    expect(errorCode(await act(admin, empty.id, 'submit'))).toBe('QUOTE_INVALID_STATE');
  });

  it('a malformed, unknown or foreign id is QUOTE_NOT_FOUND on the actions; members may not act', async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    const foreign = await draft(other);
    const calls = runs.calls.length;
    for (const action of ['submit', 'accept', 'reject'] as const) {
      for (const id of ['x', randomUUID(), foreign.id]) {
        const res = await act(admin, id, action, action === 'reject' ? {} : undefined);
        expect([action, id, res.status, errorCode(res)]).toEqual([
          action,
          id,
          ...(action === 'reject' && id === 'x' ? [400, 'VALIDATION_ERROR'] : [404, 'QUOTE_NOT_FOUND']),
        ]);
      }
    }
    expect(runs.calls.length).toBe(calls);
    const member = await rosterCaller(t, 'approved', 'member');
    expect(errorCode(await act(member, foreign.id, 'submit'))).toBe('AUTH_FORBIDDEN');
    expect((await get(other, foreign.id)).body.data.status).toBe('draft');
  });

  /** A chain mid-negotiation: the company's submitted version countered by an administrator. */
  async function countered(admin: Caller) {
    const root = await insertQuoteVersion(t.db, { companyId: admin.companyId, status: 'countered', items: [{ packageId: pkg.a, qty: 1 }] });
    const counter = await insertQuoteVersion(t.db, {
      companyId: admin.companyId,
      parent: root,
      status: 'under_review',
      note: 'Admin note',
      items: [{ packageId: pkg.b, qty: 2 }],
    });
    return { root, counter };
  }

  it('accepts an administrator’s counter under review; the older version is QUOTE_VERSION_SUPERSEDED', async () => {
    const admin = await rosterCaller(t);
    const { root, counter } = await countered(admin);
    const old = await act(admin, root.id, 'accept', undefined, 'ar');
    expect([old.status, errorCode(old), errorOf(old).message]).toEqual([
      409,
      'QUOTE_VERSION_SUPERSEDED',
      errorCodes.QUOTE_VERSION_SUPERSEDED.ar,
    ]);
    const res = await act(admin, counter.id, 'accept');
    expect([res.status, res.body.data.id, res.body.data.status]).toEqual([200, counter.id, 'accepted']);
    expect(errorCode(await act(admin, counter.id, 'accept'))).toBe('QUOTE_INVALID_STATE');
    expect(errorCode(await act(admin, counter.id, 'reject', {}))).toBe('QUOTE_INVALID_STATE');
  });

  it('may not accept or reject the company’s own version under review (only an administrator’s counter)', async () => {
    const admin = await rosterCaller(t);
    const own = await insertQuoteVersion(t.db, {
      companyId: admin.companyId,
      status: 'under_review',
      items: [{ packageId: pkg.a, qty: 1 }],
    });
    expect(errorCode(await act(admin, own.id, 'accept'))).toBe('QUOTE_INVALID_STATE');
    expect(errorCode(await act(admin, own.id, 'reject', { note: 'no' }))).toBe('QUOTE_INVALID_STATE');
    const d = await draft(admin);
    expect(errorCode(await act(admin, d.id, 'accept'))).toBe('QUOTE_INVALID_STATE');
  });

  it('rejects a counter with the reason in companyNote only (trimmed); without one companyNote stays as it was', async () => {
    const admin = await rosterCaller(t);
    const { counter } = await countered(admin);
    const res = await act(admin, counter.id, 'reject', { note: '  Too expensive  ' });
    expect([res.status, res.body.data.status, res.body.data.companyNote, res.body.data.note]).toEqual([
      200,
      'rejected',
      'Too expensive',
      'Admin note',
    ]);
    const audit = await t.db.query<{ action: string; actor_user_id: string }>(
      `select action, actor_user_id from audit_events where entity_id = $1`,
      [counter.id],
    );
    expect(audit).toEqual([{ action: 'company.quote_decline', actor_user_id: admin.userId }]);

    for (const body of [{}, { note: ' \t ' }]) {
      const { counter: next } = await countered(admin);
      await t.db.query(`update quote_versions set company_note = 'kept' where id = $1`, [next.id]);
      for (const bad of [{ note: 'x'.repeat(501) }, { note: 'a\u0000b' }, { reason: 'x' }]) {
        expect(errorCode(await act(admin, next.id, 'reject', bad))).toBe('VALIDATION_ERROR');
      }
      const kept = await act(admin, next.id, 'reject', body);
      expect([kept.body.data.status, kept.body.data.companyNote]).toEqual(['rejected', 'kept']);
    }
    const { counter: longest } = await countered(admin);
    expect((await act(admin, longest.id, 'reject', { note: 'ر'.repeat(500) })).body.data.companyNote).toBe('ر'.repeat(500));
  });

  it('answers SERVICE_UNAVAILABLE when the run does not answer, in both languages', async () => {
    const admin = await rosterCaller(t);
    const d = await draft(admin);
    for (const lang of ['en', 'ar'] as const) {
      runs.failNextAction(new AppError('SERVICE_UNAVAILABLE'));
      const res = await act(admin, d.id, 'submit', undefined, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([
        503,
        'SERVICE_UNAVAILABLE',
        errorCodes.SERVICE_UNAVAILABLE[lang],
      ]);
    }
    expect((await get(admin, d.id)).body.data.status).toBe('draft');
  });
});
