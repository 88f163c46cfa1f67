// A QuoteRuns for API tests without Temporal: it does what the negotiation workflow does (the tip
// check before anything is written, one action at a time per chain) against the database, through
// the same action functions the workflow's activities run, so API tests exercise the real SQL.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { createQuoteActions, type QuoteActions } from '../../activities/quotes';
import type { CompanyRuns } from '../../src/companies/runs';
import type { Db as SqlDb } from '../../src/db/sql';
import { AppError, isErrorCode } from '../../src/http/errors';
import type { QuoteRuns } from '../../src/quotes/runs';
import type { QuoteAction, QuoteActionRequest, QuoteLine, QuoteTip, QuoteWorkflowInput } from '../../workflows/contracts/quote-contract';
import { tipRefusal } from '../../workflows/contracts/quote-rules';

interface Db {
  sql: SqlDb;
}

export interface FakeQuoteRuns extends QuoteRuns {
  /** Inputs of the starts that succeeded, in order. */
  started: QuoteWorkflowInput[];
  /** Every action asked for, in order (refused ones too). */
  calls: { action: QuoteAction; chainRootId: string; request: QuoteActionRequest }[];
  /** The next start fails with this error (once). */
  failNextStart(err?: Error): void;
  /** The next action fails with this error (once), writing nothing: e.g. new AppError('SERVICE_UNAVAILABLE'). */
  failNextAction(err: Error): void;
}

/**
 * `db`: the test database (or a function returning it, for createTestApp's, which exists only after
 * the deps are built). `companyRuns`: told `contractConfirmed` after each confirm, as the workflow
 * signals the company run. Refusals are the AppErrors src/temporal/update.ts would produce.
 */
export function fakeQuoteRuns(db: Db | (() => Db), opts: { clock?: () => Date; companyRuns?: Pick<CompanyRuns, 'readinessChanged'> } = {}) {
  const sql = () => (typeof db === 'function' ? db() : db).sql;
  let cached: { sql: SqlDb; actions: QuoteActions } | undefined;
  const actions = (): QuoteActions => {
    if (cached?.sql !== sql()) cached = { sql: sql(), actions: createQuoteActions({ db: sql(), clock: opts.clock }) };
    return cached.actions;
  };
  // One promise chain per quote chain: actions on a chain run one after another, as in its run.
  const tails = new Map<string, Promise<unknown>>();
  let nextStartError: Error | null = null;
  let nextActionError: Error | null = null;

  function serialised<R>(action: QuoteAction, chainRootId: string, request: QuoteActionRequest, run: () => Promise<R>): Promise<R> {
    fake.calls.push({ action, chainRootId, request });
    const result = (tails.get(chainRootId) ?? Promise.resolve()).then(async () => {
      const err = nextActionError;
      nextActionError = null;
      if (err) throw err;
      const tip = await actions().tip(chainRootId);
      if (!tip) throw new AppError('QUOTE_NOT_FOUND');
      const refusal = tipRefusal(action, tip, request.versionId);
      if (refusal) throw new AppError(refusal.type, { message: refusal.message });
      try {
        return await run();
      } catch (e) {
        throw asAppError(e);
      }
    });
    tails.set(
      chainRootId,
      result.catch(() => undefined),
    );
    return result;
  }

  const answer = (tip: QuoteTip) => ({ versionId: tip.versionId, status: tip.status });

  const fake: FakeQuoteRuns = {
    started: [],
    calls: [],
    failNextStart(err = new Error('Temporal is away')) {
      nextStartError = err;
    },
    failNextAction(err) {
      nextActionError = err;
    },
    start(input) {
      const err = nextStartError;
      nextStartError = null;
      if (err) return Promise.reject(err);
      fake.started.push(input);
      return Promise.resolve();
    },
    submit: (chainRootId, request) => serialised('submit', chainRootId, request, async () => answer(await actions().submit(request))),
    startReview: (chainRootId, request) =>
      serialised('startReview', chainRootId, request, async () => answer(await actions().startReview(request))),
    counter: (chainRootId, request) => serialised('counter', chainRootId, request, async () => answer(await actions().counter(request))),
    accept: (chainRootId, request) => serialised('accept', chainRootId, request, async () => answer(await actions().accept(request))),
    decline: (chainRootId, request) => serialised('decline', chainRootId, request, async () => answer(await actions().decline(request))),
    reject: (chainRootId, request) => serialised('reject', chainRootId, request, async () => answer(await actions().reject(request))),
    confirmContract: (chainRootId, request) =>
      serialised('confirmContract', chainRootId, request, async () => {
        const outcome = await actions().confirmContract(request);
        if (opts.companyRuns) {
          const row = await sql().one<{ company_id: string }>('select company_id from contracts where id = $1', [outcome.contractId]);
          await opts.companyRuns.readinessChanged(row!.company_id, 'contractConfirmed');
        }
        return { ...answer(outcome), contractId: outcome.contractId };
      }),
  };
  return fake;
}

/** An action's refusal (ApplicationFailure typed with a spec code) as the AppError the API would see. */
function asAppError(err: unknown): unknown {
  if (!(err instanceof ApplicationFailure) || !err.type || !isErrorCode(err.type)) return err;
  const details = err.details?.length === 1 ? err.details[0] : undefined;
  return new AppError(err.type, { details, message: err.message });
}

interface QueryDb {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface QuoteVersionFixture {
  companyId: string;
  /** The version this one counters (same chain, version + 1); absent: a chain root (company-authored). */
  parent?: InsertedQuoteVersion;
  status?: QuoteTip['status'];
  items?: readonly QuoteLine[];
  needs?: { userCount: number; preference: 'minutes' | 'data' | 'mixed'; budgetHalalas: number } | null;
  fundingHalalas?: number | null;
  note?: string | null;
  companyNote?: string | null;
  createdBy?: string | null;
}

export interface InsertedQuoteVersion {
  id: string;
  chainRootId: string;
  version: number;
  companyAuthored: boolean;
  status: QuoteTip['status'];
}

/** A quote version row (and its items) written with SQL, in any state: for tests that start mid-negotiation. */
export async function insertQuoteVersion(db: QueryDb, f: QuoteVersionFixture): Promise<InsertedQuoteVersion> {
  const id = randomUUID();
  const chainRootId = f.parent?.chainRootId ?? id;
  const version = f.parent ? f.parent.version + 1 : 1;
  const status = f.status ?? 'draft';
  await db.query(
    `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference,
                                 needs_budget_halalas, needs_funding_halalas, note, company_note, created_by, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now(), now())`,
    [
      id,
      f.companyId,
      chainRootId,
      version,
      f.parent?.id ?? null,
      status,
      f.needs?.userCount ?? null,
      f.needs?.preference ?? null,
      f.needs?.budgetHalalas ?? null,
      f.fundingHalalas ?? null,
      f.note ?? null,
      f.companyNote ?? null,
      f.createdBy ?? null,
    ],
  );
  for (const item of f.items ?? []) {
    await db.query('insert into quote_items (id, quote_version_id, package_id, qty) values ($1, $2, $3, $4)', [
      randomUUID(),
      id,
      item.packageId,
      item.qty,
    ]);
  }
  return { id, chainRootId, version, companyAuthored: !f.parent, status };
}

/** The tip the workflow input needs, from a fixture. */
export const tipOfFixture = (v: InsertedQuoteVersion): QuoteTip => ({
  versionId: v.id,
  version: v.version,
  status: v.status,
  companyAuthored: v.companyAuthored,
});
