import { readContract } from '../contracts';
import type { Db } from '../db/sql';
import type { ContractBody } from '../contracts/schemas';
import type { QuoteStatus } from '../entities';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { QuoteActor, QuoteLine } from '../../workflows/contracts/quote-contract';
import { queueTips } from './repository';
import type { QuoteRuns } from './runs';
import { assertInCatalog, readDetail, resolve } from './service';
import { chainViews, type QuoteDetailView } from './views';

export interface QuoteAdminDeps {
  db: Db;
  runs: QuoteRuns;
  clock: () => Date;
}

/** Drafts are the company's own: the administration neither lists nor finds them. */
const STAFF = { hideDrafts: true } as const;

/**
 * The administrators' side of quotes: the queue, one chain's version, and the review actions, each
 * an update of the chain's negotiation run on the version the administrator names.
 */
export function createQuoteAdmin(deps: QuoteAdminDeps) {
  const { db, runs } = deps;

  async function list(query: OffsetPaging & { status?: QuoteStatus; companyId?: string }) {
    const { rows, total } = await queueTips(db, {
      status: query.status,
      companyId: query.companyId,
      limit: query.limit,
      offset: offsetOf(query),
    });
    const chains = (await chainViews(db, rows)).map(({ ref, live, history, tip }) => ({
      ref,
      live,
      history,
      companyName: tip.company_name,
    }));
    return offsetPageBody('chains', chains, total, query);
  }

  function get(id: string): Promise<QuoteDetailView> {
    return readDetail(db, id, STAFF);
  }

  async function startReview(actor: QuoteActor, id: string): Promise<QuoteDetailView> {
    const row = await resolve(db, id, STAFF);
    const result = await runs.startReview(row.chain_root_id, { versionId: row.id, actor });
    return readDetail(db, result.versionId, {});
  }

  /** The lines are checked against the catalog before the run is asked; the answer is the new version. */
  async function counter(actor: QuoteActor, id: string, items: QuoteLine[], note: string | undefined): Promise<QuoteDetailView> {
    const row = await resolve(db, id, STAFF);
    await assertInCatalog(db, items);
    const result = await runs.counter(row.chain_root_id, { versionId: row.id, actor, items, note: note ?? null });
    return readDetail(db, result.versionId, {});
  }

  async function reject(actor: QuoteActor, id: string, note: string | undefined): Promise<QuoteDetailView> {
    const row = await resolve(db, id, STAFF);
    const result = await runs.reject(row.chain_root_id, { versionId: row.id, actor, ...(note !== undefined && { note }) });
    return readDetail(db, result.versionId, {});
  }

  /** The contract the confirm created, read as every contract route answers it. */
  async function confirmContract(actor: QuoteActor, id: string): Promise<ContractBody> {
    const row = await resolve(db, id, STAFF);
    const result = await runs.confirmContract(row.chain_root_id, { versionId: row.id, actor });
    const contract = await readContract(db, { contractId: result.contractId }, deps.clock());
    if (!contract) throw new Error(`confirmed contract ${result.contractId} not found`);
    return contract;
  }

  return { list, get, startReview, counter, reject, confirmContract };
}

export type QuoteAdmin = ReturnType<typeof createQuoteAdmin>;
