// The quote negotiation workflow on the time-skipping server, driven through the API's client code
// (src/quotes/runs-temporal.ts), with its real activities on a test database. The company's onboarding run
// is real too, with a readiness activity that reads only whether an active contract exists, so the
// test sees the confirm's readiness signal land.
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createQuoteActivities } from '../../activities/quotes';
import { AppError } from '../../src/http/errors';
import type { QuoteRuns } from '../../src/quotes/runs';
import { createQuoteRuns } from '../../src/quotes/runs-temporal';
import { companyStateQuery, companyWorkflowId, type Readiness } from '../../workflows/contracts/company-contract';
import { companyOnboardingWorkflow } from '../../workflows/company-onboarding';
import {
  allowed,
  quoteStateQuery,
  quoteWorkflowId,
  type QuoteAction,
  type QuoteActor,
  type QuoteLine,
  type QuoteTip,
} from '../../workflows/contracts/quote-contract';
import { quoteNegotiationWorkflow } from '../../workflows/quote-negotiation';
import { eventually } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { insertCompany, insertUser } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { insertQuoteVersion, tipOfFixture, type InsertedQuoteVersion, type QuoteVersionFixture } from '../helpers/quote-runs';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let db: TestDatabase;
let worker: RunningTestWorker;
let runs: QuoteRuns;
let taskQueue: string;
let adminId: string;
let pkg: string;

beforeAll(async () => {
  [env, bundle, db] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('../../workflows')),
    createTestDatabase(),
  ]);
  taskQueue = uniqueTaskQueue('quote');
  worker = await runTestWorker(env, {
    taskQueue,
    workflowBundle: bundle,
    activities: {
      ...createQuoteActivities({ db: db.sql }),
      // The company run's readiness: only the contract gate, straight from the table.
      async companyReadiness({ companyId }: { companyId: string }): Promise<Readiness> {
        const [row] = await db.query<{ active: boolean }>(
          `select exists (select 1 from contracts where company_id = $1 and status = 'active') as active`,
          [companyId],
        );
        return { contractConfirmed: row.active, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };
      },
    },
  });
  runs = createQuoteRuns(env.client, { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false }, { db: db.sql });
  adminId = await insertUser(db, 'Reviewer', 'admin');
  pkg = await insertPackage(db, { priceSarB2b: '49.50' });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await db?.drop();
});

const actor = (): QuoteActor => ({ userId: adminId, ip: '203.0.113.9', userAgent: 'jest' });
const on = (v: { id: string } | QuoteTip) => ({ versionId: 'id' in v ? v.id : v.versionId, actor: actor() });
const lines = (qty = 3): QuoteLine[] => [{ packageId: pkg, qty }];

async function company(mode: 'prepaid' | 'flexible' | null = 'prepaid'): Promise<string> {
  const id = await insertCompany(db, 'approved');
  await db.query('update companies set payment_mode = $2 where id = $1', [id, mode]);
  return id;
}

interface Chain {
  companyId: string;
  chainRootId: string;
  /** The version the run was started on (the chain's tip then). */
  tip: InsertedQuoteVersion;
  root: InsertedQuoteVersion;
}

/**
 * A chain whose tip is in `status` (company-authored, or an admin counter of a countered root), with
 * its run started on that tip, as if the negotiation had got there.
 */
async function chainAt(
  status: QuoteTip['status'],
  opts: { adminAuthored?: boolean; companyId?: string; continueAsNewAfter?: number } & Partial<QuoteVersionFixture> = {},
): Promise<Chain> {
  const companyId = opts.companyId ?? (await company());
  const fixture = { items: lines(), ...opts, companyId };
  const root = await insertQuoteVersion(db, { ...fixture, status: opts.adminAuthored ? 'countered' : status });
  const tip = opts.adminAuthored ? await insertQuoteVersion(db, { ...fixture, parent: root, status }) : root;
  await runs.start({ chainRootId: root.chainRootId, companyId, tip: tipOfFixture(tip), continueAsNewAfter: opts.continueAsNewAfter });
  return { companyId, chainRootId: root.chainRootId, tip, root };
}

/** One action through the run, with the request the route would send. */
function act(chain: Chain, action: QuoteAction, version: { id: string } | QuoteTip = chain.tip) {
  const request = on(version);
  switch (action) {
    case 'counter':
      return runs.counter(chain.chainRootId, { ...request, items: lines(5), note: 'counter' });
    case 'decline':
    case 'reject':
      return runs[action](chain.chainRootId, { ...request, note: 'no' });
    default:
      return runs[action](chain.chainRootId, request);
  }
}

/** The refusal's code (and details), or 'ok'. */
async function outcome(promise: Promise<unknown>): Promise<string | { code: string; details: unknown }> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.details === undefined ? err.code : { code: err.code, details: err.details };
  }
}

const runState = (chain: Chain) => env.client.workflow.getHandle(quoteWorkflowId(chain.chainRootId)).query(quoteStateQuery);
const runStatus = async (chain: Chain) => (await env.client.workflow.getHandle(quoteWorkflowId(chain.chainRootId)).describe()).status.name;
const versions = (chain: Chain) =>
  db.query<{ id: string; version: number; status: string; parent_id: string | null }>(
    'select id, version, status, parent_id from quote_versions where chain_root_id = $1 order by version',
    [chain.chainRootId],
  );
const contractsOf = (companyId: string) =>
  db.query<{ id: string; quote_request_id: string; payment_mode: string; total_halalas: string }>(
    'select id, quote_request_id, payment_mode, total_halalas from contracts where company_id = $1',
    [companyId],
  );

/** What each action leaves the tip at when allowed. */
const RESULT: Record<QuoteAction, QuoteTip['status']> = {
  submit: 'submitted',
  startReview: 'under_review',
  counter: 'under_review',
  accept: 'accepted',
  decline: 'rejected',
  reject: 'rejected',
  confirmContract: 'accepted',
};

describe('the status table, action by action against the run', () => {
  const TIPS: { label: string; status: QuoteTip['status']; adminAuthored: boolean }[] = [
    { label: 'draft', status: 'draft', adminAuthored: false },
    { label: 'submitted', status: 'submitted', adminAuthored: false },
    { label: 'company-authored under_review', status: 'under_review', adminAuthored: false },
    { label: 'admin-authored under_review', status: 'under_review', adminAuthored: true },
    { label: 'accepted counter', status: 'accepted', adminAuthored: true },
    { label: 'rejected', status: 'rejected', adminAuthored: false },
  ];
  const ACTIONS: QuoteAction[] = ['submit', 'startReview', 'counter', 'accept', 'decline', 'reject', 'confirmContract'];
  const cases = TIPS.flatMap((tip) => ACTIONS.map((action) => [tip.label, action, tip] as const));

  it.each(cases)('%s + %s: as allowed() says; a refusal writes nothing', async (_label, action, spec) => {
    const chain = await chainAt(spec.status, { adminAuthored: spec.adminAuthored });
    const tip = tipOfFixture(chain.tip);
    const before = await versions(chain);
    const result = await outcome(act(chain, action));
    if (allowed(action, tip)) {
      expect(result).toBe('ok');
      const state = await runState(chain);
      expect(state.tip.status).toBe(RESULT[action]);
      const stored = await versions(chain);
      // The run's tip is the stored tip.
      expect(stored.find((v) => v.id === state.tip.versionId)).toMatchObject({ status: RESULT[action], version: state.tip.version });
      if (action === 'counter') expect(stored.map((v) => v.status).slice(-2)).toEqual(['countered', 'under_review']);
      if (action === 'confirmContract') expect(await contractsOf(chain.companyId)).toHaveLength(1);
    } else {
      expect(result).toBe('QUOTE_INVALID_STATE');
      expect(await versions(chain)).toEqual(before);
      expect(await contractsOf(chain.companyId)).toEqual([]);
    }
  });
});

describe('negotiation', () => {
  it('walks draft → submitted → under_review → counter → accepted → contract; the run then completes and signals the company run', async () => {
    const companyId = await company('prepaid');
    await env.client.workflow.start(companyOnboardingWorkflow, {
      taskQueue,
      workflowId: companyWorkflowId(companyId),
      args: [{ companyId, status: 'approved' }],
    });
    const chain = await chainAt('draft', { companyId });
    expect(await runs.submit(chain.chainRootId, on(chain.tip))).toEqual({ versionId: chain.tip.id, status: 'submitted' });
    expect(await runs.startReview(chain.chainRootId, on(chain.tip))).toEqual({ versionId: chain.tip.id, status: 'under_review' });
    const counter = await runs.counter(chain.chainRootId, { ...on(chain.tip), items: lines(4), note: 'four seats' });
    expect(counter).toEqual({ versionId: expect.not.stringMatching(chain.tip.id) as string, status: 'under_review' });
    expect((await runState(chain)).tip).toEqual({
      versionId: counter.versionId,
      version: 2,
      status: 'under_review',
      companyAuthored: false,
    });
    expect(await runs.accept(chain.chainRootId, on({ id: counter.versionId }))).toEqual({
      versionId: counter.versionId,
      status: 'accepted',
    });
    const confirmed = await runs.confirmContract(chain.chainRootId, on({ id: counter.versionId }));
    expect(confirmed).toEqual({ versionId: counter.versionId, status: 'accepted', contractId: expect.any(String) as string });
    expect(await contractsOf(companyId)).toEqual([
      { id: confirmed.contractId, quote_request_id: counter.versionId, payment_mode: 'prepaid', total_halalas: String(4 * 4950) },
    ]);

    // The company run heard of it and recomputed readiness from the database.
    const company_ = env.client.workflow.getHandle(companyWorkflowId(companyId));
    await eventually(async () => expect((await company_.query(companyStateQuery)).readiness.contractConfirmed).toBe(true), 10_000);
    // Nothing more can happen to the chain: its run has completed, and actions are answered from the database.
    await eventually(async () => expect(await runStatus(chain)).toBe('COMPLETED'), 10_000);
    expect(await outcome(runs.confirmContract(chain.chainRootId, on({ id: counter.versionId })))).toBe('CONTRACT_ALREADY_EXISTS');
    expect(await outcome(runs.accept(chain.chainRootId, on({ id: counter.versionId })))).toBe('QUOTE_INVALID_STATE');
    expect(await outcome(runs.accept(chain.chainRootId, on(chain.tip)))).toBe('QUOTE_VERSION_SUPERSEDED');
    expect(await outcome(runs.reject(chain.chainRootId, on(chain.tip)))).toBe('QUOTE_INVALID_STATE');
    await company_.terminate('test done');
  });

  it('accept and decline of a superseded version are QUOTE_VERSION_SUPERSEDED; every other action on it QUOTE_INVALID_STATE', async () => {
    const chain = await chainAt('under_review', { adminAuthored: true });
    for (const action of ['accept', 'decline'] as const)
      expect(await outcome(act(chain, action, chain.root))).toBe('QUOTE_VERSION_SUPERSEDED');
    for (const action of ['submit', 'startReview', 'counter', 'reject', 'confirmContract'] as const) {
      expect([action, await outcome(act(chain, action, chain.root))]).toEqual([action, 'QUOTE_INVALID_STATE']);
    }
    expect((await versions(chain)).map((v) => v.status)).toEqual(['countered', 'under_review']);
  });

  it('reject after supersede: the older version is refused, the tip is rejected, the note replaces note; then the run completes', async () => {
    const chain = await chainAt('submitted');
    const counter = await act(chain, 'counter');
    expect(await outcome(runs.reject(chain.chainRootId, { ...on(chain.tip), note: 'late' }))).toBe('QUOTE_INVALID_STATE');
    expect(await runs.reject(chain.chainRootId, { ...on({ id: counter.versionId }), note: 'final' })).toEqual({
      versionId: counter.versionId,
      status: 'rejected',
    });
    const [row] = await db.query<{ note: string; company_note: string | null }>(
      'select note, company_note from quote_versions where id = $1',
      [counter.versionId],
    );
    expect(row).toEqual({ note: 'final', company_note: null });
    await eventually(async () => expect(await runStatus(chain)).toBe('COMPLETED'), 10_000);
    // A finished chain answers from the database with the codes the run would give.
    expect(await outcome(runs.reject(chain.chainRootId, on({ id: counter.versionId })))).toBe('QUOTE_INVALID_STATE');
    expect(await outcome(runs.decline(chain.chainRootId, on(chain.tip)))).toBe('QUOTE_VERSION_SUPERSEDED');
    expect(await outcome(runs.submit(randomUUID(), on(chain.tip)))).toBe('QUOTE_NOT_FOUND');
  });

  it('racing company accept and admin counter on one tip: exactly one wins; the loser is QUOTE_INVALID_STATE or QUOTE_VERSION_SUPERSEDED', async () => {
    for (let i = 0; i < 4; i++) {
      const chain = await chainAt('under_review', { adminAuthored: true });
      const [accepted, countered] = await Promise.all([outcome(act(chain, 'accept')), outcome(act(chain, 'counter'))]);
      expect([accepted, countered].filter((r) => r === 'ok')).toHaveLength(1);
      const stored = await versions(chain);
      if (accepted === 'ok') {
        expect(countered).toBe('QUOTE_INVALID_STATE');
        expect(stored.map((v) => v.status)).toEqual(['countered', 'accepted']);
      } else {
        expect(accepted).toBe('QUOTE_VERSION_SUPERSEDED');
        expect(stored.map((v) => v.status)).toEqual(['countered', 'countered', 'under_review']);
      }
      expect((await runState(chain)).tip.versionId).toBe(stored[stored.length - 1].id);
    }
  });

  it('a repeated counter, sent after the first was answered, is judged afresh (test/workflows/update-ids.test.ts): refused, written once', async () => {
    const chain = await chainAt('submitted');
    const request = { ...on(chain.tip), items: lines(), note: null };
    await runs.counter(chain.chainRootId, request);
    await expect(runs.counter(chain.chainRootId, request)).rejects.toMatchObject({ code: 'QUOTE_INVALID_STATE' });
    expect(await versions(chain)).toHaveLength(2);
  });
});

describe('confirm-contract', () => {
  it('prepaid from a company-authored under_review version: the version becomes accepted, prices snapshotted', async () => {
    const chain = await chainAt('under_review', {
      items: [...lines(2), { packageId: await insertPackage(db, { priceSarB2b: '0.05' }), qty: 7 }],
    });
    const result = await act(chain, 'confirmContract');
    expect(result).toMatchObject({ versionId: chain.tip.id, status: 'accepted' });
    expect(await contractsOf(chain.companyId)).toEqual([
      expect.objectContaining({ payment_mode: 'prepaid', total_halalas: String(2 * 4950 + 7 * 5) }),
    ]);
  });

  it('flexible: total = needs.fundingSar, zero lines', async () => {
    const chain = await chainAt('submitted', { companyId: await company('flexible'), items: [], fundingHalalas: 250_000 });
    const { contractId } = await runs.confirmContract(chain.chainRootId, on(chain.tip));
    expect(await contractsOf(chain.companyId)).toEqual([
      expect.objectContaining({ id: contractId, payment_mode: 'flexible', total_halalas: '250000' }),
    ]);
    expect(await db.query('select id from contract_items where contract_id = $1', [contractId])).toEqual([]);
  });

  it('refused, writing nothing and leaving the run on its tip: no mode, prepaid without items, flexible without funding, a package without a B2B price', async () => {
    const unpriced = await insertPackage(db, { priceSarB2b: null });
    const cases: [string, Chain, unknown][] = [
      ['no mode', await chainAt('submitted', { companyId: await company(null) }), 'QUOTE_INVALID_STATE'],
      ['prepaid, no items', await chainAt('submitted', { items: [], fundingHalalas: 100 }), 'QUOTE_INVALID_STATE'],
      ['flexible, no funding', await chainAt('submitted', { companyId: await company('flexible') }), 'QUOTE_INVALID_STATE'],
      [
        'price missing',
        await chainAt('submitted', { items: [...lines(), { packageId: unpriced, qty: 1 }] }),
        { code: 'CONTRACT_PACKAGE_PRICE_MISSING', details: { packageId: unpriced } },
      ],
    ];
    for (const [label, chain, expected] of cases) {
      expect([label, await outcome(act(chain, 'confirmContract'))]).toEqual([label, expected]);
      expect(await contractsOf(chain.companyId)).toEqual([]);
      expect((await versions(chain)).map((v) => v.status)).toEqual(['submitted']);
      expect((await runState(chain)).tip.status).toBe('submitted');
      expect(await runStatus(chain)).toBe('RUNNING');
    }
    // The refusal was about the data, not the chain: once the price exists, the same confirm goes through.
    await db.query(`update packages set price_b2b_halalas = 1234 where id = $1`, [unpriced]);
    const [, priced] = cases[3];
    expect(await outcome(act(priced, 'confirmContract'))).toBe('ok');
  });

  it('20 confirms of one chain at once create exactly one contract; the rest are CONTRACT_ALREADY_EXISTS', async () => {
    const chain = await chainAt('submitted');
    const results = await Promise.all(Array.from({ length: 20 }, () => outcome(act(chain, 'confirmContract'))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'CONTRACT_ALREADY_EXISTS')).toHaveLength(19);
    expect(await contractsOf(chain.companyId)).toHaveLength(1);
  });

  it('20 chains of one company confirmed at once: one contract, the rest CONTRACT_ALREADY_EXISTS, their versions untouched', async () => {
    const companyId = await company();
    const chains = await Promise.all(Array.from({ length: 20 }, () => chainAt('submitted', { companyId })));
    const results = await Promise.all(chains.map((chain) => outcome(act(chain, 'confirmContract'))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'CONTRACT_ALREADY_EXISTS')).toHaveLength(19);
    expect(await contractsOf(companyId)).toHaveLength(1);
    const accepted = await db.query(`select id from quote_versions where company_id = $1 and status = 'accepted'`, [companyId]);
    expect(accepted).toHaveLength(1);
  });

  it('a company without a run: the confirm still succeeds and the quote run completes (the signal is best effort)', async () => {
    const chain = await chainAt('submitted');
    expect(await outcome(act(chain, 'confirmContract'))).toBe('ok');
    await eventually(async () => expect(await runStatus(chain)).toBe('COMPLETED'), 10_000);
  });
});

describe('the run', () => {
  it('starting twice is one run', async () => {
    const chain = await chainAt('draft');
    const handle = env.client.workflow.getHandle(quoteWorkflowId(chain.chainRootId));
    const { runId } = await handle.describe();
    await runs.start({ chainRootId: chain.chainRootId, companyId: chain.companyId, tip: tipOfFixture(chain.tip) });
    expect((await handle.describe()).runId).toBe(runId);
  });

  it('continues as new after its quota of actions, keeping the tip; the new run goes on from it', async () => {
    const chain = await chainAt('draft', { continueAsNewAfter: 2 });
    const handle = env.client.workflow.getHandle<typeof quoteNegotiationWorkflow>(quoteWorkflowId(chain.chainRootId));
    const first = (await handle.describe()).runId;
    await act(chain, 'submit');
    await act(chain, 'startReview');
    await eventually(async () => expect((await handle.describe()).runId).not.toBe(first), 10_000);
    expect(await runState(chain)).toEqual({
      chainRootId: chain.chainRootId,
      companyId: chain.companyId,
      tip: { versionId: chain.tip.id, version: 1, status: 'under_review', companyAuthored: true },
    });
    expect(await outcome(act(chain, 'startReview'))).toBe('QUOTE_INVALID_STATE');
    const counter = await act(chain, 'counter');
    expect((await runState(chain)).tip).toEqual({
      versionId: counter.versionId,
      version: 2,
      status: 'under_review',
      companyAuthored: false,
    });
  });
});
