import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ContractResponse } from '../../src/contracts/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { AppError } from '../../src/http/errors';
import { quoteRef, type QuoteStatusValue } from '../../workflows/contracts/quote-contract';
import { createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { signInAs, type Caller } from '../helpers/company-routes';
import { insertCompany } from '../helpers/companies';
import { call, ISO, type AdminChainListBody, type DetailBody } from '../helpers/quote-api';
import { fakeQuoteRuns, insertQuoteVersion, type InsertedQuoteVersion, type QuoteVersionFixture } from '../helpers/quote-runs';
import { errorOf } from '../helpers/responses';

// Internal administration of quotes (spec "Admin: quotes", "Quote status"): the queue, the detail, and
// start-review, counter, reject and confirm-contract, on real Postgres with the fake run's real SQL.
let t: TestApp;
const runs = fakeQuoteRuns(() => t.db, { clock: () => t.clock() });
let pkg: { a: string; b: string; noPrice: string };
let viewer: Caller;
let manager: Caller;
let root: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { quoteRuns: runs } });
  pkg = {
    a: await insertPackage(t.db, { priceSarB2b: '49.50' }),
    b: await insertPackage(t.db, { priceSarB2b: '80.05' }),
    noPrice: await insertPackage(t.db, { priceSarB2b: null }),
  };
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
  manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
  root = await signInAs(t, 'super_admin');
});
afterAll(() => t.close());

type ContractBody = z.infer<typeof ContractResponse>;
type AdminAction = 'start-review' | 'counter' | 'reject' | 'confirm-contract';
const detail = (c: Caller, id: string, lang?: string) => call<DetailBody>(t, 'get', `/admin/quotes/${id}`, { token: c.token, lang });
const queue = (c: Caller, query: object = {}) => call<AdminChainListBody>(t, 'get', '/admin/quotes', { token: c.token, query });
const act = <B = DetailBody>(c: Caller, id: string, action: AdminAction, body?: unknown, lang?: string) =>
  call<B>(t, 'post', `/admin/quotes/${id}/${action}`, { token: c.token, body, lang });
const confirm = (c: Caller, id: string, lang?: string) => act<ContractBody>(c, id, 'confirm-contract', undefined, lang);

async function company(name = 'Acme', paymentMode: 'prepaid' | 'flexible' | null = 'prepaid'): Promise<string> {
  const id = await insertCompany(t.db, 'approved');
  await t.db.query('update companies set name = $2, payment_mode = $3 where id = $1', [id, name, paymentMode]);
  return id;
}

/** A version row (and lines) in any state, stamped with the app's clock. */
async function version(f: QuoteVersionFixture, at = t.clock()): Promise<InsertedQuoteVersion> {
  const v = await insertQuoteVersion(t.db, { items: [{ packageId: pkg.a, qty: 2 }], ...f });
  await t.db.query('update quote_versions set created_at = $2, updated_at = $2 where id = $1', [v.id, at]);
  return v;
}

/** A chain whose company version was countered: [root (countered), counter (under_review)]. */
async function counteredChain(companyId: string) {
  const needs = { userCount: 4, preference: 'data', budgetHalalas: 10000 } as const;
  const first = await version({ companyId, status: 'countered', needs });
  const counter = await version({
    companyId,
    parent: first,
    status: 'under_review',
    needs,
    items: [{ packageId: pkg.b, qty: 3 }],
    note: 'Counter',
  });
  return [first, counter] as const;
}

describe('GET /admin/quotes', () => {
  it('lists chains with a live version that is not a draft, by company name A to Z then latest activity, with companyName', async () => {
    const zulu = await company('zulu trading');
    const alpha = await company('Alpha Co');
    const beta = await company('beta');
    const hour = 3_600_000;
    const base = t.clock().getTime();
    const older = await version({ companyId: alpha, status: 'submitted' }, new Date(base - 2 * hour));
    const [first, counter] = await counteredChain(alpha);
    await t.db.query('update quote_versions set updated_at = $2 where id = $1', [counter.id, new Date(base - hour)]);
    const latest = await version({ companyId: alpha, status: 'accepted' }, new Date(base - 30 * 60_000));
    await version({ companyId: alpha, status: 'draft' });
    const z = await version({ companyId: zulu, status: 'rejected' });
    await version({ companyId: beta, status: 'draft' });

    const res = await queue(viewer, { limit: '100' });
    expect(res.status).toBe(200);
    const mine = res.body.data.chains.filter((c) => [alpha, beta, zulu].includes(c.live.companyId));
    expect(mine.map((c) => [c.companyName, c.live.id])).toEqual([
      ['Alpha Co', latest.id],
      ['Alpha Co', counter.id],
      ['Alpha Co', older.id],
      ['zulu trading', z.id],
    ]);
    expect(mine[1]).toMatchObject({ ref: quoteRef(first.id), history: [{ id: first.id, status: 'countered', version: 1 }] });
    expect(res.body.data.chains.every((c) => c.live.status !== 'draft' && c.live.status !== 'countered')).toBe(true);
  });

  it('filters by the live version’s status and by company, pages with total; draft is not a status here', async () => {
    const id = await company('Filter Co');
    const other = await company('Filter Co');
    const s1 = await version({ companyId: id, status: 'submitted' });
    await version({ companyId: id, status: 'rejected' });
    await counteredChain(id);
    await version({ companyId: other, status: 'submitted' });

    const byCompany = await queue(viewer, { companyId: id });
    expect(byCompany.body.data.total).toBe(3);
    expect(byCompany.body.data.chains.every((c) => c.live.companyId === id && c.companyName === 'Filter Co')).toBe(true);
    const submitted = await queue(viewer, { companyId: id, status: 'submitted' });
    expect(submitted.body.data.chains.map((c) => c.live.id)).toEqual([s1.id]);
    expect((await queue(viewer, { companyId: id, status: 'countered' })).body.data.total).toBe(0);
    const page = await queue(viewer, { companyId: id, limit: '2', page: '2' });
    expect([page.body.data.total, page.body.data.page, page.body.data.limit, page.body.data.chains.length]).toEqual([3, 2, 2, 1]);
    for (const query of [{ status: 'draft' }, { companyId: 'acme' }, { limit: '101' }, { search: 'x' }]) {
      expect([query, errorCode(await queue(viewer, query))]).toEqual([query, 'VALIDATION_ERROR']);
    }
  });
});

describe('GET /admin/quotes/:id', () => {
  it('answers any non-draft version with note and companyNote; a draft, unknown id 404, a malformed id 400, in both languages', async () => {
    const id = await company();
    const [first, counter] = await counteredChain(id);
    await t.db.query(`update quote_versions set status = 'rejected', company_note = 'Too much' where id = $1`, [counter.id]);
    const res = await detail(viewer, counter.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: counter.id,
      parentId: first.id,
      version: 2,
      status: 'rejected',
      note: 'Counter',
      companyNote: 'Too much',
      needs: { userCount: 4, preference: 'data', budgetSar: 100 },
      items: [{ packageId: pkg.b, qty: 3 }],
      versions: [
        { id: first.id, version: 1, status: 'countered' },
        { id: counter.id, version: 2, status: 'rejected' },
      ],
    });
    expect(res.body.data.createdAt).toMatch(ISO);
    expect((await detail(root, first.id)).body.data.id).toBe(first.id);
    const draft = await version({ companyId: id, status: 'draft' });
    for (const lang of ['en', 'ar'] as const) {
      for (const missing of [draft.id, randomUUID()]) {
        const nf = await detail(viewer, missing, lang);
        expect([nf.status, errorCode(nf), errorOf(nf).message]).toEqual([404, 'QUOTE_NOT_FOUND', errorCodes.QUOTE_NOT_FOUND[lang]]);
      }
      const bad = await detail(viewer, 'Q-0123456789ab', lang);
      expect([bad.status, errorCode(bad), errorOf(bad).message]).toEqual([400, 'VALIDATION_ERROR', errorCodes.VALIDATION_ERROR[lang]]);
    }
  });

  it('is for staff with b2b view: others get AUTH_FORBIDDEN; writes need manage', async () => {
    const id = await company();
    const v = await version({ companyId: id, status: 'submitted' });
    const noArea = await signInAs(t, 'admin', { view: [] });
    const b2b = await signInAs(t, 'b2b_admin');
    for (const c of [noArea, b2b]) expect(errorCode(await detail(c, v.id))).toBe('AUTH_FORBIDDEN');
    expect(errorCode(await queue(noArea))).toBe('AUTH_FORBIDDEN');
    for (const action of ['start-review', 'reject', 'confirm-contract'] as const) {
      const res = await act(viewer, v.id, action, action === 'reject' ? {} : undefined, 'ar');
      expect([action, res.status, errorCode(res), errorOf(res).message]).toEqual([
        action,
        403,
        'AUTH_FORBIDDEN',
        errorCodes.AUTH_FORBIDDEN.ar,
      ]);
    }
    expect(errorCode(await act(viewer, v.id, 'counter', { items: [{ packageId: pkg.a, qty: 1 }] }))).toBe('AUTH_FORBIDDEN');
    expect((await detail(viewer, v.id)).body.data.status).toBe('submitted');
  });
});

describe('the administrators’ actions on the status table', () => {
  type Row = [action: 'start-review' | 'counter' | 'reject', from: QuoteStatusValue, authored: 'company' | 'admin', outcome: string];
  const table: Row[] = [
    ['start-review', 'submitted', 'company', 'under_review'],
    ['start-review', 'under_review', 'company', 'QUOTE_INVALID_STATE'],
    ['start-review', 'accepted', 'admin', 'QUOTE_INVALID_STATE'],
    ['start-review', 'rejected', 'company', 'QUOTE_INVALID_STATE'],
    ['start-review', 'draft', 'company', 'QUOTE_NOT_FOUND'],
    ['counter', 'submitted', 'company', 'under_review'],
    ['counter', 'under_review', 'company', 'under_review'],
    ['counter', 'under_review', 'admin', 'under_review'],
    ['counter', 'accepted', 'admin', 'QUOTE_INVALID_STATE'],
    ['counter', 'rejected', 'company', 'QUOTE_INVALID_STATE'],
    ['counter', 'draft', 'company', 'QUOTE_NOT_FOUND'],
    ['reject', 'submitted', 'company', 'rejected'],
    ['reject', 'under_review', 'company', 'rejected'],
    ['reject', 'under_review', 'admin', 'rejected'],
    ['reject', 'accepted', 'admin', 'QUOTE_INVALID_STATE'],
    ['reject', 'rejected', 'company', 'QUOTE_INVALID_STATE'],
    ['reject', 'draft', 'company', 'QUOTE_NOT_FOUND'],
  ];

  it.each(table)('%s from %s (%s-authored): %s', async (action, from, authored, outcome) => {
    const id = await company();
    const parent = authored === 'admin' ? await version({ companyId: id, status: 'countered' }) : undefined;
    const v = await version({ companyId: id, parent, status: from, note: 'old note' });
    const body = action === 'counter' ? { items: [{ packageId: pkg.b, qty: 5 }] } : action === 'reject' ? {} : undefined;
    const res = await act(manager, v.id, action, body);
    if (outcome.includes('_') && outcome === outcome.toUpperCase()) {
      expect([res.status, errorCode(res)]).toEqual([errorCodes[outcome as keyof typeof errorCodes].status, outcome]);
      const [row] = await t.db.query<{ status: string }>('select status from quote_versions where id = $1', [v.id]);
      expect(row.status).toBe(from);
    } else {
      expect([res.status, res.body.data.status]).toEqual([200, outcome]);
    }
  });

  it('start-review stamps reviewedBy and reviewedAt', async () => {
    const id = await company();
    const v = await version({ companyId: id, status: 'submitted' });
    t.clock.advance(1000);
    const res = await act(manager, v.id, 'start-review');
    expect(res.body.data).toMatchObject({
      id: v.id,
      status: 'under_review',
      reviewedBy: manager.userId,
      reviewedAt: t.clock().toISOString(),
    });
  });

  it('counter answers the new version: version + 1, parent set, needs carried over, the new lines and note', async () => {
    const id = await company();
    const v = await version({
      companyId: id,
      status: 'submitted',
      needs: { userCount: 9, preference: 'minutes', budgetHalalas: 123456 },
      fundingHalalas: 99,
    });
    const res = await act(manager, v.id, 'counter', {
      items: [
        { packageId: pkg.b, qty: 10000 },
        { packageId: pkg.a, qty: 1 },
      ],
      note: '  Volume discount  ',
    });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      version: 2,
      parentId: v.id,
      companyId: id,
      status: 'under_review',
      note: 'Volume discount',
      companyNote: null,
      createdBy: manager.userId,
      needs: { userCount: 9, preference: 'minutes', budgetSar: 1234.56, fundingSar: 0.99 },
      versions: [
        { id: v.id, version: 1, status: 'countered' },
        { id: d.id, version: 2, status: 'under_review' },
      ],
    });
    // In the order sent.
    expect(d.items.map((i) => [i.packageId, i.qty])).toEqual([
      [pkg.b, 10000],
      [pkg.a, 1],
    ]);
    expect(runs.calls.at(-1)).toMatchObject({
      action: 'counter',
      chainRootId: v.chainRootId,
      request: { versionId: v.id, note: 'Volume discount' },
    });
    // The countered version is no longer actionable.
    expect(errorCode(await act(manager, v.id, 'counter', { items: [{ packageId: pkg.a, qty: 1 }] }))).toBe('QUOTE_INVALID_STATE');
  });

  it('counter checks its body and the catalog before the run is asked', async () => {
    const id = await company();
    const v = await version({ companyId: id, status: 'submitted' });
    const calls = runs.calls.length;
    for (const body of [
      {},
      { items: [] },
      { items: [{ packageId: pkg.a, qty: 0 }] },
      { items: [{ packageId: pkg.a, qty: 1 }], note: 'n'.repeat(501) },
      { items: [{ packageId: pkg.a, qty: 1 }], needs: { fundingSar: 1 } },
      { items: Array.from({ length: 201 }, () => ({ packageId: randomUUID(), qty: 1 })) },
    ]) {
      expect(errorCode(await act(manager, v.id, 'counter', body))).toBe('VALIDATION_ERROR');
    }
    const unknown = randomUUID();
    for (const lang of ['en', 'ar'] as const) {
      const res = await act(
        manager,
        v.id,
        'counter',
        {
          items: [
            { packageId: unknown, qty: 1 },
            { packageId: pkg.noPrice, qty: 1 },
          ],
        },
        lang,
      );
      expect([res.status, errorCode(res), errorOf(res).details, errorOf(res).message]).toEqual([
        400,
        'QUOTE_PACKAGE_NOT_FOUND',
        { packageIds: [unknown, pkg.noPrice] },
        errorCodes.QUOTE_PACKAGE_NOT_FOUND[lang],
      ]);
    }
    expect(errorCode(await act(manager, 'nope', 'counter', { items: [{ packageId: pkg.a, qty: 1 }] }))).toBe('VALIDATION_ERROR');
    expect(runs.calls.length).toBe(calls);
    runs.failNextAction(new AppError('QUOTE_COUNTER_FAILED'));
    const failed = await act(manager, v.id, 'counter', { items: [{ packageId: pkg.a, qty: 1 }] }, 'ar');
    expect([failed.status, errorCode(failed), errorOf(failed).message]).toEqual([
      502,
      'QUOTE_COUNTER_FAILED',
      errorCodes.QUOTE_COUNTER_FAILED.ar,
    ]);
  });

  it('reject replaces note only when one is given (blank counts as absent), never companyNote, and is audited', async () => {
    const id = await company();
    const a = await version({ companyId: id, status: 'submitted', note: 'old', companyNote: 'theirs' });
    const res = await act(manager, a.id, 'reject', { note: 'Out of stock' });
    expect([res.body.data.status, res.body.data.note, res.body.data.companyNote]).toEqual(['rejected', 'Out of stock', 'theirs']);
    expect(await t.db.query('select action, actor_user_id from audit_events where entity_id = $1', [a.id])).toEqual([
      { action: 'company.quote_reject', actor_user_id: manager.userId },
    ]);
    for (const body of [{}, { note: '   ' }]) {
      const b = await version({ companyId: id, status: 'under_review', note: 'kept' });
      expect((await act(manager, b.id, 'reject', body)).body.data.note).toBe('kept');
    }
    const c = await version({ companyId: id, status: 'submitted' });
    expect(errorCode(await act(manager, c.id, 'reject', { note: 'x'.repeat(501) }))).toBe('VALIDATION_ERROR');
    expect([(await act(manager, 'nope', 'reject', {})).status, errorCode(await act(manager, 'nope', 'reject', {}))]).toEqual([
      404,
      'QUOTE_NOT_FOUND',
    ]);
    expect(errorCode(await act(manager, 'nope', 'start-review'))).toBe('QUOTE_NOT_FOUND');
  });

  it('answers SERVICE_UNAVAILABLE when the run does not answer', async () => {
    const id = await company();
    const v = await version({ companyId: id, status: 'submitted' });
    runs.failNextAction(new AppError('SERVICE_UNAVAILABLE'));
    const res = await act(manager, v.id, 'start-review', undefined, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([503, 'SERVICE_UNAVAILABLE', errorCodes.SERVICE_UNAVAILABLE.ar]);
  });
});

describe('POST /admin/quotes/:id/confirm-contract', () => {
  it('prepaid, from a company version submitted: 201 with the contract at the B2B prices, the version accepted', async () => {
    const id = await company('Prepaid Co', 'prepaid');
    const v = await version({
      companyId: id,
      status: 'submitted',
      items: [
        { packageId: pkg.a, qty: 2 },
        { packageId: pkg.b, qty: 3 },
      ],
    });
    const res = await confirm(root, v.id);
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(c).toMatchObject({
      companyId: id,
      quoteRequestId: v.id,
      paymentMode: 'prepaid',
      status: 'active',
      totalSar: 339.15,
      confirmedBy: root.userId,
      totalQty: 5,
      rosterCount: 0,
      driftExcess: 0,
    });
    expect(c.ref).toMatch(/^CTR-[0-9A-Fa-f]{12}$/);
    expect(c.items.map((i) => [i.packageId, i.qty, i.unitPriceSar, i.consumedQty, i.remainingQty]).sort()).toEqual(
      [
        [pkg.a, 2, 49.5, 0, 2],
        [pkg.b, 3, 80.05, 0, 3],
      ].sort(),
    );
    expect((await detail(viewer, v.id)).body.data.status).toBe('accepted');
    // One active contract per company: another chain of the same company cannot be confirmed.
    const next = await version({ companyId: id, status: 'submitted' });
    for (const lang of ['en', 'ar'] as const) {
      const again = await confirm(manager, next.id, lang);
      expect([again.status, errorCode(again), errorOf(again).message]).toEqual([
        409,
        'CONTRACT_ALREADY_EXISTS',
        errorCodes.CONTRACT_ALREADY_EXISTS[lang],
      ]);
    }
  });

  it('flexible: totalSar is the declared funding, no lines', async () => {
    const id = await company('Flex Co', 'flexible');
    const v = await version({ companyId: id, status: 'under_review', items: [], fundingHalalas: 123456 });
    const res = await confirm(manager, v.id);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      paymentMode: 'flexible',
      totalSar: 1234.56,
      items: [],
      totalQty: 0,
      driftExcess: 0,
      quoteRequestId: v.id,
    });
  });

  it('from an accepted counter, but not from a counter the company has not accepted', async () => {
    const id = await company();
    const [, counter] = await counteredChain(id);
    const refused = await confirm(manager, counter.id, 'ar');
    expect([refused.status, errorCode(refused), errorOf(refused).message]).toEqual([
      409,
      'QUOTE_INVALID_STATE',
      errorCodes.QUOTE_INVALID_STATE.ar,
    ]);
    await t.db.query(`update quote_versions set status = 'accepted' where id = $1`, [counter.id]);
    const res = await confirm(manager, counter.id);
    expect([res.status, res.body.data.totalSar, res.body.data.items.map((i) => [i.packageId, i.qty])]).toEqual([201, 240.15, [[pkg.b, 3]]]);
  });

  it.each([
    ['no payment mode chosen', null, { status: 'submitted' }],
    ['prepaid without lines', 'prepaid', { status: 'submitted', items: [], fundingHalalas: 100 }],
    ['flexible without fundingSar', 'flexible', { status: 'submitted' }],
    ['a rejected version', 'prepaid', { status: 'rejected' }],
    ['the countered version of a chain', 'prepaid', { status: 'countered' }],
  ] as const)('refuses %s with QUOTE_INVALID_STATE and creates nothing', async (_label, mode, f) => {
    const id = await company('Refused Co', mode);
    const v = await version({ companyId: id, ...f });
    const res = await confirm(manager, v.id);
    expect([res.status, errorCode(res)]).toEqual([409, 'QUOTE_INVALID_STATE']);
    expect(await t.db.query('select id from contracts where company_id = $1', [id])).toEqual([]);
  });

  it('a quoted package without a B2B price fails the whole confirm: CONTRACT_PACKAGE_PRICE_MISSING with the packageId', async () => {
    const id = await company();
    const gone = await insertPackage(t.db, { priceSarB2b: '10.00' });
    const v = await version({
      companyId: id,
      status: 'submitted',
      items: [
        { packageId: pkg.a, qty: 1 },
        { packageId: gone, qty: 1 },
      ],
    });
    await t.db.query('update packages set price_b2b_halalas = null where id = $1', [gone]);
    const res = await confirm(manager, v.id, 'ar');
    expect([res.status, errorCode(res), errorOf(res).details, errorOf(res).message]).toEqual([
      400,
      'CONTRACT_PACKAGE_PRICE_MISSING',
      { packageId: gone },
      errorCodes.CONTRACT_PACKAGE_PRICE_MISSING.ar,
    ]);
    expect(await t.db.query('select id from contracts where company_id = $1', [id])).toEqual([]);
    expect((await detail(viewer, v.id)).body.data.status).toBe('submitted');
  });

  it('a draft, unknown id is QUOTE_NOT_FOUND; a malformed id VALIDATION_ERROR; a failed write CONTRACT_CREATE_FAILED', async () => {
    const id = await company();
    const d = await version({ companyId: id, status: 'draft' });
    for (const missing of [d.id, randomUUID()]) expect(errorCode(await confirm(manager, missing))).toBe('QUOTE_NOT_FOUND');
    expect(errorCode(await confirm(manager, 'CTR-1'))).toBe('VALIDATION_ERROR');
    const v = await version({ companyId: id, status: 'submitted' });
    runs.failNextAction(new AppError('CONTRACT_CREATE_FAILED'));
    const res = await confirm(manager, v.id);
    expect([res.status, errorCode(res)]).toEqual([502, 'CONTRACT_CREATE_FAILED']);
  });
});
