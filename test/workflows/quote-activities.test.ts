// The quote actions (activities/quotes.ts) called directly on a test database, without Temporal: each
// one's SQL guards, stamps, audit rows and refusals, and what happens when two of them race (here
// nothing serialises them: the guards alone must let exactly one win).
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { createQuoteActions, type QuoteActions } from '../../activities/quotes';
import type { QuoteActor, QuoteLine } from '../../workflows/contracts/quote-contract';
import { insertPackage } from '../helpers/catalog';
import { insertCompany, insertUser } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { fakeQuoteRuns, insertQuoteVersion, type InsertedQuoteVersion, type QuoteVersionFixture } from '../helpers/quote-runs';

let db: TestDatabase;
let actions: QuoteActions;
let adminId: string;
let pkg: string;

beforeAll(async () => {
  db = await createTestDatabase();
  actions = createQuoteActions({ db: db.sql });
  adminId = await insertUser(db, 'Reviewer', 'admin');
  pkg = await insertPackage(db, { priceSarB2b: '49.50' });
});
afterAll(() => db?.drop());

const actor = (userId = adminId): QuoteActor => ({ userId, ip: '203.0.113.9', userAgent: 'jest' });
const on = (v: { id: string }, userId?: string) => ({ versionId: v.id, actor: actor(userId) });

/** The refusal's spec code and details, or 'ok'. */
async function outcome(promise: Promise<unknown>): Promise<string | { type: string; details: unknown }> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (!(err instanceof ApplicationFailure)) throw err;
    expect(err.nonRetryable).toBe(true);
    return err.details?.length ? { type: err.type!, details: err.details[0] } : err.type!;
  }
}

async function company(mode: 'prepaid' | 'flexible' | null = 'prepaid'): Promise<string> {
  const id = await insertCompany(db, 'approved');
  await db.query('update companies set payment_mode = $2 where id = $1', [id, mode]);
  return id;
}

const lines = (qty = 3): QuoteLine[] => [{ packageId: pkg, qty }];

async function version(f: Partial<QuoteVersionFixture> & { companyId?: string } = {}): Promise<InsertedQuoteVersion> {
  const companyId = f.companyId ?? (f.parent ? await ownerOf(f.parent) : await company());
  return insertQuoteVersion(db, { items: lines(), ...f, companyId });
}

async function ownerOf(v: { id: string }): Promise<string> {
  const [row] = await db.query<{ company_id: string }>('select company_id from quote_versions where id = $1', [v.id]);
  return row.company_id;
}

/** A chain whose tip is an admin counter under review. */
async function countered(companyId?: string): Promise<{ root: InsertedQuoteVersion; tip: InsertedQuoteVersion }> {
  const root = await version({ companyId: companyId ?? (await company()), status: 'countered' });
  const tip = await version({ parent: root, status: 'under_review' });
  return { root, tip };
}

const row = async (id: string) =>
  (
    await db.query<{
      status: string;
      note: string | null;
      company_note: string | null;
      reviewed_by: string | null;
      reviewed_at: Date | null;
    }>('select status, note, company_note, reviewed_by, reviewed_at from quote_versions where id = $1', [id])
  )[0];

const audit = (entityId: string) =>
  db.query<{ action: string; actor_user_id: string; company_id: string; details: Record<string, unknown>; ip: string; user_agent: string }>(
    'select action, actor_user_id, company_id, details, ip, user_agent from audit_events where entity_id = $1 order by created_at',
    [entityId],
  );

const contractsOf = (companyId: string) =>
  db.query<{ id: string; ref: string; quote_request_id: string; payment_mode: string; total_halalas: string; confirmed_by: string }>(
    'select id, ref, quote_request_id, payment_mode, total_halalas, confirmed_by from contracts where company_id = $1',
    [companyId],
  );

describe('submit', () => {
  it('draft → submitted with an item, or with fundingSar and no item', async () => {
    const withItem = await version();
    expect(await actions.submit(on(withItem))).toEqual({ versionId: withItem.id, version: 1, status: 'submitted', companyAuthored: true });
    const funded = await version({ items: [], fundingHalalas: 500_000 });
    expect((await actions.submit(on(funded))).status).toBe('submitted');
    expect((await row(funded.id)).status).toBe('submitted');
  });

  it('refuses a draft with no item and no fundingSar, and every other state, with QUOTE_INVALID_STATE', async () => {
    const empty = await version({ items: [], needs: { userCount: 5, preference: 'data', budgetHalalas: 100 } });
    expect(await outcome(actions.submit(on(empty)))).toBe('QUOTE_INVALID_STATE');
    expect((await row(empty.id)).status).toBe('draft');
    for (const status of ['submitted', 'under_review', 'accepted', 'rejected', 'countered', 'expired'] as const) {
      expect([status, await outcome(actions.submit(on(await version({ status }))))]).toEqual([status, 'QUOTE_INVALID_STATE']);
    }
    expect(await outcome(actions.submit(on({ id: randomUUID() })))).toBe('QUOTE_NOT_FOUND');
  });
});

describe('startReview', () => {
  it('submitted → under_review, stamping reviewedBy and reviewedAt; refuses other states', async () => {
    const v = await version({ status: 'submitted' });
    expect((await actions.startReview(on(v))).status).toBe('under_review');
    const stored = await row(v.id);
    expect(stored).toMatchObject({ status: 'under_review', reviewed_by: adminId });
    expect(Date.now() - new Date(stored.reviewed_at!).getTime()).toBeLessThan(60_000);
    expect(await outcome(actions.startReview(on(v)))).toBe('QUOTE_INVALID_STATE');
    expect(await outcome(actions.startReview(on(await version())))).toBe('QUOTE_INVALID_STATE');
  });
});

describe('counter', () => {
  it('one transaction: this version countered, a new admin-authored version under_review with the needs carried over, the items and note; audited', async () => {
    const companyId = await company();
    const other = await insertPackage(db, { priceSarB2b: '10.00' });
    const v = await version({
      companyId,
      status: 'under_review',
      needs: { userCount: 12, preference: 'mixed', budgetHalalas: 123_456 },
      fundingHalalas: 99_999_999_99,
      note: 'old',
    });
    const tip = await actions.counter({ ...on(v), items: [{ packageId: other, qty: 7 }, ...lines(2)], note: 'best we can do' });
    expect(tip).toEqual({ versionId: expect.any(String) as string, version: 2, status: 'under_review', companyAuthored: false });
    expect((await row(v.id)).status).toBe('countered');
    const [child] = await db.query<Record<string, unknown>>(
      `select company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference, needs_budget_halalas,
              needs_funding_halalas, note, company_note, created_by from quote_versions where id = $1`,
      [tip.versionId],
    );
    expect(child).toEqual({
      company_id: companyId,
      chain_root_id: v.chainRootId,
      version: 2,
      parent_id: v.id,
      status: 'under_review',
      needs_user_count: 12,
      needs_preference: 'mixed',
      needs_budget_halalas: '123456',
      needs_funding_halalas: '9999999999',
      note: 'best we can do',
      company_note: null,
      created_by: adminId,
    });
    const items = await db.query('select package_id, qty from quote_items where quote_version_id = $1 order by qty', [tip.versionId]);
    expect(items).toEqual([
      { package_id: pkg, qty: 2 },
      { package_id: other, qty: 7 },
    ]);
    expect(await audit(tip.versionId)).toEqual([
      {
        action: 'company.quote_counter',
        actor_user_id: adminId,
        company_id: companyId,
        details: { chainRootId: v.chainRootId, fromVersionId: v.id, version: 2, lines: 2 },
        ip: '203.0.113.9',
        user_agent: 'jest',
      },
    ]);
  });

  it('counters a submitted version too; refuses draft, terminal and superseded versions', async () => {
    expect((await actions.counter({ ...on(await version({ status: 'submitted' })), items: lines(), note: null })).version).toBe(2);
    for (const status of ['draft', 'accepted', 'rejected', 'countered'] as const) {
      expect([status, await outcome(actions.counter({ ...on(await version({ status })), items: lines(), note: null }))]).toEqual([
        status,
        'QUOTE_INVALID_STATE',
      ]);
    }
  });

  it('a write that fails for another reason is QUOTE_COUNTER_FAILED and writes nothing', async () => {
    const v = await version({ status: 'under_review' });
    expect(await outcome(actions.counter({ ...on(v), items: [{ packageId: randomUUID(), qty: 1 }], note: null }))).toBe(
      'QUOTE_COUNTER_FAILED',
    );
    expect((await row(v.id)).status).toBe('under_review');
    expect(await db.query('select id from quote_versions where parent_id = $1', [v.id])).toEqual([]);
  });
});

describe('company accept and decline', () => {
  it('accept: an admin-authored under_review tip → accepted; a company-authored one and an older version are refused', async () => {
    const { root, tip } = await countered();
    expect(await outcome(actions.accept(on(root)))).toBe('QUOTE_VERSION_SUPERSEDED');
    expect(await outcome(actions.decline(on(root)))).toBe('QUOTE_VERSION_SUPERSEDED');
    expect((await actions.accept(on(tip))).status).toBe('accepted');
    expect(await outcome(actions.accept(on(tip)))).toBe('QUOTE_INVALID_STATE');
    expect(await outcome(actions.accept(on(await version({ status: 'under_review' }))))).toBe('QUOTE_INVALID_STATE');
  });

  it('decline: the reason goes to companyNote only when given (note untouched); audited as company.quote_decline', async () => {
    const companyId = await company();
    const root = await version({ companyId, status: 'countered' });
    const tip = await version({ companyId, parent: root, status: 'under_review', note: 'reviewer says', companyNote: 'earlier reason' });
    const userId = await insertUser(db, 'Company admin', 'b2b_admin');
    expect((await actions.decline(on(tip, userId))).status).toBe('rejected');
    expect(await row(tip.id)).toMatchObject({ status: 'rejected', note: 'reviewer says', company_note: 'earlier reason' });
    expect(await audit(tip.id)).toEqual([
      expect.objectContaining({
        action: 'company.quote_decline',
        actor_user_id: userId,
        company_id: companyId,
        details: { chainRootId: root.id, version: 2, note: null },
      }),
    ]);

    const { tip: other } = await countered();
    await actions.decline({ ...on(other, userId), note: 'too expensive' });
    expect(await row(other.id)).toMatchObject({ status: 'rejected', note: null, company_note: 'too expensive' });
    expect(await outcome(actions.decline({ ...on(other, userId), note: 'again' }))).toBe('QUOTE_INVALID_STATE');
  });
});

describe('admin reject', () => {
  it('draft, submitted and under_review → rejected; the note replaces note only when given, never companyNote; audited', async () => {
    for (const status of ['draft', 'submitted', 'under_review'] as const) {
      const v = await version({ status, note: 'old note', companyNote: 'company says' });
      expect((await actions.reject({ ...on(v), note: 'not feasible' })).status).toBe('rejected');
      expect(await row(v.id)).toMatchObject({ status: 'rejected', note: 'not feasible', company_note: 'company says' });
      expect((await audit(v.id)).map((a) => [a.action, a.details])).toEqual([
        ['company.quote_reject', { chainRootId: v.chainRootId, version: 1, note: 'not feasible' }],
      ]);
    }
    const kept = await version({ status: 'submitted', note: 'old note' });
    await actions.reject(on(kept));
    expect(await row(kept.id)).toMatchObject({ status: 'rejected', note: 'old note' });
  });

  it('refuses terminal states and a superseded version (QUOTE_INVALID_STATE)', async () => {
    for (const status of ['accepted', 'rejected', 'countered', 'expired'] as const) {
      expect([status, await outcome(actions.reject(on(await version({ status }))))]).toEqual([status, 'QUOTE_INVALID_STATE']);
    }
    const { root } = await countered();
    expect(await outcome(actions.reject(on(root)))).toBe('QUOTE_INVALID_STATE');
  });
});

describe('confirmContract', () => {
  it('prepaid: one contract line per quote item at the B2B price now; total Σ qty × price; the version accepted; audited', async () => {
    const companyId = await company('prepaid');
    const cheap = await insertPackage(db, { priceSarB2b: '0.01' });
    const v = await version({
      companyId,
      status: 'submitted',
      items: [
        { packageId: pkg, qty: 3 },
        { packageId: cheap, qty: 10_000 },
      ],
    });
    const result = await actions.confirmContract(on(v));
    expect(result).toEqual({
      versionId: v.id,
      version: 1,
      status: 'accepted',
      companyAuthored: true,
      contractId: expect.any(String) as string,
    });
    expect((await row(v.id)).status).toBe('accepted');
    const [contract] = await contractsOf(companyId);
    expect(contract).toMatchObject({
      id: result.contractId,
      quote_request_id: v.id,
      payment_mode: 'prepaid',
      total_halalas: String(3 * 4950 + 10_000 * 1),
      confirmed_by: adminId,
    });
    expect(contract.ref).toMatch(/^CTR-[0-9A-F]{12}$/);
    const items = await db.query('select package_id, qty, unit_price_halalas from contract_items where contract_id = $1 order by qty', [
      contract.id,
    ]);
    expect(items).toEqual([
      { package_id: pkg, qty: 3, unit_price_halalas: '4950' },
      { package_id: cheap, qty: 10_000, unit_price_halalas: '1' },
    ]);
    expect(await audit(contract.id)).toEqual([
      expect.objectContaining({
        action: 'company.contract_confirm',
        company_id: companyId,
        details: {
          ref: contract.ref,
          quoteVersionId: v.id,
          chainRootId: v.chainRootId,
          paymentMode: 'prepaid',
          totalHalalas: 24_850,
          lines: 2,
        },
      }),
    ]);
  });

  it('flexible: total = needs.fundingSar, no lines, items ignored', async () => {
    const companyId = await company('flexible');
    const v = await version({ companyId, status: 'under_review', items: [], fundingHalalas: 1_234_567 });
    const { contractId } = await actions.confirmContract(on(v));
    expect(await contractsOf(companyId)).toEqual([
      expect.objectContaining({ id: contractId, payment_mode: 'flexible', total_halalas: '1234567' }),
    ]);
    expect(await db.query('select id from contract_items where contract_id = $1', [contractId])).toEqual([]);
  });

  it('an accepted admin counter is confirmed unchanged', async () => {
    const { tip } = await countered();
    await db.query(`update quote_versions set status = 'accepted' where id = $1`, [tip.id]);
    expect((await actions.confirmContract(on(tip))).companyAuthored).toBe(false);
  });

  it('refusals: ineligible states, no mode, no items, no funding, a package without a B2B price or inactive; nothing written', async () => {
    const refusals: [string, InsertedQuoteVersion, unknown][] = [];
    for (const status of ['draft', 'countered', 'rejected', 'expired'] as const) {
      refusals.push([status, await version({ status }), 'QUOTE_INVALID_STATE']);
    }
    refusals.push(['admin counter under review', (await countered()).tip, 'QUOTE_INVALID_STATE']);
    refusals.push(['superseded', (await countered()).root, 'QUOTE_INVALID_STATE']);
    refusals.push(['no mode', await version({ companyId: await company(null), status: 'submitted' }), 'QUOTE_INVALID_STATE']);
    refusals.push(['prepaid, no items', await version({ status: 'submitted', items: [], fundingHalalas: 100 }), 'QUOTE_INVALID_STATE']);
    refusals.push([
      'flexible, no funding',
      await version({ companyId: await company('flexible'), status: 'submitted' }),
      'QUOTE_INVALID_STATE',
    ]);
    const unpriced = await insertPackage(db, { priceSarB2b: null });
    const inactive = await insertPackage(db, { isActive: false });
    // An active, priced package of an operator switched off is out of the B2B catalog too.
    const offOperator = await insertPackage(db);
    await db.query(
      `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
       values ($1, $2, 'telecom', 'Off', 'متوقف', false, now(), now())`,
      [randomUUID(), `off-${randomUUID().slice(0, 8)}`],
    );
    await db.query(`update packages set operator_id = (select id from operators where name_en = 'Off' limit 1) where id = $1`, [
      offOperator,
    ]);
    for (const packageId of [unpriced, inactive, offOperator]) {
      refusals.push([
        'price missing',
        await version({ status: 'submitted', items: [...lines(), { packageId, qty: 1 }] }),
        { type: 'CONTRACT_PACKAGE_PRICE_MISSING', details: { packageId } },
      ]);
    }
    for (const [label, v, expected] of refusals) {
      const before = await row(v.id);
      expect([label, await outcome(actions.confirmContract(on(v)))]).toEqual([label, expected]);
      expect(await row(v.id)).toEqual(before);
      expect(await contractsOf(await ownerOf(v))).toEqual([]);
    }
  });

  it('a second contract for the company is CONTRACT_ALREADY_EXISTS', async () => {
    const companyId = await company();
    await actions.confirmContract(on(await version({ companyId, status: 'submitted' })));
    const second = await version({ companyId, status: 'submitted' });
    expect(await outcome(actions.confirmContract(on(second)))).toBe('CONTRACT_ALREADY_EXISTS');
    expect((await row(second.id)).status).toBe('submitted');
  });

  it('a retry of a committed confirm finds its contract; without `retried` it is refused', async () => {
    const v = await version({ status: 'submitted' });
    const first = await actions.confirmContract(on(v));
    expect(await actions.confirmContract(on(v), { retried: true })).toEqual(first);
    expect(await outcome(actions.confirmContract(on(v)))).toBe('CONTRACT_ALREADY_EXISTS');
  });
});

describe('a retried attempt (Temporal retries an activity whose answer was lost)', () => {
  it('finds its own committed move or counter instead of refusing it; a first attempt is refused', async () => {
    const v = await version();
    const submitted = await actions.submit(on(v));
    expect(await actions.submit(on(v), { retried: true })).toEqual(submitted);
    expect(await outcome(actions.submit(on(v)))).toBe('QUOTE_INVALID_STATE');

    const counter = { ...on(v), items: lines(), note: null };
    const child = await actions.counter(counter);
    expect(await actions.counter(counter, { retried: true })).toEqual(child);
    expect(await outcome(actions.counter(counter))).toBe('QUOTE_INVALID_STATE');
    expect(await db.query('select id from quote_versions where parent_id = $1', [v.id])).toHaveLength(1);
    expect((await audit(child.versionId)).map((a) => a.action)).toEqual(['company.quote_counter']);
  });

  it('still refuses on a retry when the row is elsewhere', async () => {
    const v = await version({ status: 'rejected' });
    expect(await outcome(actions.accept(on(v), { retried: true }))).toBe('QUOTE_INVALID_STATE');
    expect(await outcome(actions.counter({ ...on(v), items: lines(), note: null }, { retried: true }))).toBe('QUOTE_INVALID_STATE');
  });
});

describe('races without any serialisation (the SQL guards alone)', () => {
  it('accept vs counter on one version: exactly one wins', async () => {
    for (let i = 0; i < 5; i++) {
      const { tip } = await countered();
      const results = await Promise.all([
        outcome(actions.accept(on(tip))),
        outcome(actions.counter({ ...on(tip), items: lines(), note: null })),
      ]);
      expect(results.filter((r) => r === 'ok')).toHaveLength(1);
      expect(results.filter((r) => r !== 'ok')).toEqual([expect.stringMatching(/^QUOTE_(INVALID_STATE|VERSION_SUPERSEDED)$/)]);
      const children = await db.query('select id from quote_versions where parent_id = $1', [tip.id]);
      expect((await row(tip.id)).status).toBe(results[0] === 'ok' ? 'accepted' : 'countered');
      expect(children).toHaveLength(results[0] === 'ok' ? 0 : 1);
    }
  });

  it('two counters of one version: one child', async () => {
    const v = await version({ status: 'under_review' });
    const results = await Promise.all([1, 2].map(() => outcome(actions.counter({ ...on(v), items: lines(), note: null }))));
    expect(results.sort()).toEqual(['QUOTE_INVALID_STATE', 'ok']);
    expect(await db.query('select id from quote_versions where parent_id = $1', [v.id])).toHaveLength(1);
  });

  it('20 chains of one company confirmed at once: one contract, the rest CONTRACT_ALREADY_EXISTS', async () => {
    const companyId = await company();
    const versions = await Promise.all(Array.from({ length: 20 }, () => version({ companyId, status: 'submitted' })));
    const results = await Promise.all(versions.map((v) => outcome(actions.confirmContract(on(v)))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'CONTRACT_ALREADY_EXISTS')).toHaveLength(19);
    expect(await contractsOf(companyId)).toHaveLength(1);
    expect(await db.query(`select id from quote_versions where company_id = $1 and status = 'accepted'`, [companyId])).toHaveLength(1);
  });
});

describe('fakeQuoteRuns (the API tests’ stand-in for the run)', () => {
  it('applies the tip rule before writing and serialises a chain: accept vs counter at once, one wins', async () => {
    const runs = fakeQuoteRuns(db);
    const { root, tip } = await countered();
    await expect(runs.accept(root.chainRootId, on(root))).rejects.toMatchObject({ code: 'QUOTE_VERSION_SUPERSEDED' });
    await expect(runs.startReview(root.chainRootId, on(tip))).rejects.toMatchObject({ code: 'QUOTE_INVALID_STATE' });
    const results = await Promise.allSettled([
      runs.counter(root.chainRootId, { ...on(tip), items: lines(), note: null }),
      runs.accept(root.chainRootId, on(tip)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'QUOTE_VERSION_SUPERSEDED' });
  });

  it('confirm answers { versionId, status, contractId } and tells the company run; refusals carry details', async () => {
    const told: string[] = [];
    const runs = fakeQuoteRuns(() => db, { companyRuns: { readinessChanged: (companyId) => Promise.resolve(void told.push(companyId)) } });
    const companyId = await company();
    const v = await version({ companyId, status: 'submitted' });
    expect(await runs.confirmContract(v.chainRootId, on(v))).toEqual({
      versionId: v.id,
      status: 'accepted',
      contractId: expect.any(String) as string,
    });
    expect(told).toEqual([companyId]);
    const unpriced = await insertPackage(db, { priceSarB2b: null });
    const w = await version({ status: 'submitted', items: [{ packageId: unpriced, qty: 1 }] });
    await expect(runs.confirmContract(w.chainRootId, on(w))).rejects.toMatchObject({
      code: 'CONTRACT_PACKAGE_PRICE_MISSING',
      details: { packageId: unpriced },
    });
  });
});
