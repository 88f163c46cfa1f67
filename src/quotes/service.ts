import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../db/sql';
import { AppError, type Language } from '../http/errors';
import { isUuid } from '../http/fields';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { QuoteStatus } from '../entities';
import type { QuoteActor, QuoteLine } from '../../workflows/contracts/quote-contract';
import {
  catalogRows,
  companyTips,
  deleteItems,
  findVersion,
  insertDraft,
  insertItems,
  packagesOutsideCatalog,
  updateDraftNeeds,
  type NeedsColumns,
  type VersionScope,
} from './repository';
import type { QuoteRuns } from './runs';
import type { NeedsInput, QuoteInput } from './schemas';
import { catalogEntryView, chainViews, detailView, type CatalogEntryView, type QuoteDetailView } from './views';
import { pendingStart } from '../workflow-starts/kinds';
import { enqueueStart, type StartLauncher } from '../workflow-starts/launch';

export interface QuoteServiceDeps {
  db: Db;
  runs: QuoteRuns;
  /** Makes the chain run's start at once after the commit (or leaves it to the start relay). */
  starts: StartLauncher;
  clock: () => Date;
}

/** The portal actions on a chain, each one update of the chain's run. */
export type PortalAction = 'submit' | 'accept' | 'decline';

/**
 * Quotes as the company sees them, and the catalog both sides quote from. Drafts are written here
 * (create, patch: the draft is the company's alone); every other move is an update of the chain's
 * negotiation run (QuoteRuns), which checks it against the tip and writes it.
 */
export function createQuoteService(deps: QuoteServiceDeps) {
  const { db, runs, clock } = deps;

  async function catalog(lang: Language): Promise<CatalogEntryView[]> {
    return (await catalogRows(db)).map((row) => catalogEntryView(row, lang));
  }

  async function list(companyId: string, query: OffsetPaging & { status?: QuoteStatus }) {
    const { rows, total } = await companyTips(db, { companyId, status: query.status, limit: query.limit, offset: offsetOf(query) });
    const chains = (await chainViews(db, rows)).map(({ ref, live, history }) => ({ ref, live, history }));
    return offsetPageBody('chains', chains, total, query);
  }

  async function get(companyId: string, id: string): Promise<QuoteDetailView> {
    return readDetail(db, id, { companyId });
  }

  /**
   * The draft (version 1, its own chain root), its lines and the chain run's pending start in one
   * transaction, then the run's start: the start relay makes it when this attempt could not. Until the
   * run exists, actions on the chain answer SERVICE_UNAVAILABLE (src/quotes/runs-temporal.ts); patching the
   * draft needs no run.
   */
  async function create(actor: QuoteActor, companyId: string, input: QuoteInput): Promise<QuoteDetailView> {
    await assertInCatalog(db, input.items);
    const id = randomUUID();
    const start = pendingStart.quote({
      chainRootId: id,
      companyId,
      tip: { versionId: id, version: 1, status: 'draft', companyAuthored: true },
    });
    // The answer is read in the transaction: nothing after the commit can fail the request, so an error
    // means no draft was made (a retry makes the one draft) and a 201 means it was.
    const detail = await db.transaction(async (tx) => {
      await insertDraft(tx, { id, companyId, createdBy: actor.userId, needs: needsColumns(input.needs), now: clock() });
      await insertItems(tx, id, input.items);
      await enqueueStart(tx, start);
      return readDetail(tx, id, {});
    });
    await deps.starts.launch(start);
    return detail;
  }

  /**
   * Replaces a draft's needs and lines wholesale, with the version row locked: a submit (the run's
   * activity, which also checks `draft` under the lock) sees either the old draft or the new one.
   */
  async function patch(companyId: string, id: string, input: QuoteInput): Promise<QuoteDetailView> {
    return db.transaction(async (tx) => {
      const row = await findVersion(tx, id, { companyId, lock: true });
      if (!row) throw new AppError('QUOTE_NOT_FOUND');
      if (row.status !== 'draft') throw new AppError('QUOTE_INVALID_STATE');
      await assertInCatalog(tx, input.items);
      await updateDraftNeeds(tx, id, needsColumns(input.needs), clock());
      await deleteItems(tx, id);
      await insertItems(tx, id, input.items);
      return readDetail(tx, id, {});
    });
  }

  /** submit, accept or decline (company reject) of the version the caller names, within their company. */
  async function act(action: PortalAction, actor: QuoteActor, companyId: string, id: string, note?: string): Promise<QuoteDetailView> {
    const row = await resolve(db, id, { companyId });
    const request = { versionId: row.id, actor };
    const result =
      action === 'submit'
        ? await runs.submit(row.chain_root_id, request)
        : action === 'accept'
          ? await runs.accept(row.chain_root_id, request)
          : await runs.decline(row.chain_root_id, { ...request, ...(note !== undefined && { note }) });
    return readDetail(db, result.versionId, {});
  }

  return { catalog, list, get, create, patch, act };
}

export type QuoteService = ReturnType<typeof createQuoteService>;

/** A version the caller may see, or QUOTE_NOT_FOUND (a malformed id too: it names nothing). */
export async function resolve(sql: Sql, id: string, scope: VersionScope) {
  const row = isUuid(id) ? await findVersion(sql, id, scope) : null;
  if (!row) throw new AppError('QUOTE_NOT_FOUND');
  return row;
}

export async function readDetail(sql: Sql, id: string, scope: VersionScope): Promise<QuoteDetailView> {
  return detailView(sql, await resolve(sql, id, scope));
}

/** QUOTE_PACKAGE_NOT_FOUND with every line's package that is not in the B2B catalog. */
export async function assertInCatalog(sql: Sql, lines: readonly QuoteLine[]): Promise<void> {
  const packageIds = await packagesOutsideCatalog(
    sql,
    lines.map((l) => l.packageId),
  );
  if (packageIds.length > 0) throw new AppError('QUOTE_PACKAGE_NOT_FOUND', { details: { packageIds } });
}

/** The request's needs (amounts already in halalas) as columns; the schema let the trio through only whole. */
function needsColumns(needs: NeedsInput = {}): NeedsColumns {
  const { userCount, preference, budgetSar, fundingSar } = needs;
  const trio = userCount !== undefined && preference !== undefined && budgetSar !== undefined;
  return {
    userCount: trio ? userCount : null,
    preference: trio ? preference : null,
    budgetHalalas: trio ? budgetSar : null,
    fundingHalalas: fundingSar ?? null,
  };
}

/** A note as the run takes it: trimmed, and blank counts as absent. */
export function noteOf(note: string | undefined): string | undefined {
  const trimmed = note?.trim();
  return trimmed ? trimmed : undefined;
}
