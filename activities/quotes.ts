import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { writeAudit } from '../src/audit/writer';
import { isUniqueViolation, type Db, type Sql } from '../src/db/sql';
import { findCompany, hasActiveContract } from '../src/companies';
import { contractOfQuote, insertContract, insertContractItems } from '../src/contracts';
import {
  catalogPrices,
  counteredChild,
  counterTip,
  insertCounterVersion,
  insertItems,
  lockVersionToConfirm,
  markAccepted,
  movedTo,
  moveTip,
  versionAsTip,
  versionCompanyId,
  versionItems,
  type TipMove,
  type TipRow,
} from '../src/quotes/repository';
import { readQuoteTip, tipOf } from '../src/quotes/tip';
import type {
  CounterRequest,
  NoteRequest,
  QuoteAction,
  QuoteActionRequest,
  QuoteActor,
  QuoteStatusValue,
  QuoteTip,
} from '../workflows/contracts/quote-contract';
import type { QuoteRefusalCode } from '../workflows/contracts/quote-rules';

export interface QuoteActivityDeps {
  db: Db;
  clock?: () => Date;
}

/** The tip a confirm left (the version, now accepted) and the contract it created. */
type ConfirmOutcome = QuoteTip & { contractId: string };

export interface ActionOptions {
  /**
   * This call repeats one that may have committed (a Temporal retry after a lost answer). A refused
   * guard is then first checked against the action's own outcome: found, it is answered as done
   * instead of refused. Safe because the chain's run takes one action at a time.
   */
  retried?: boolean;
}

/** A definite refusal: never retried, its type is the spec code, one details object when the spec names one. */
function quoteRefusal(type: QuoteRefusalCode, message: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: details ? [details] : undefined });
}

/** `CTR-` + 12 upper-case hex characters (48 random bits; the unique index on ref catches the rare repeat). */
const contractRef = () => `CTR-${randomBytes(6).toString('hex').toUpperCase()}`;

/** The audit row a move writes with it, in its transaction. */
type MoveAudit = (tx: Sql, row: TipRow, now: Date) => Promise<unknown>;

/**
 * The quote actions, each one transaction whose writes are guarded in SQL (`where id = $1 and status …
 * and no child`: the status table in src/quotes/repository.ts), so a write happens only from the state
 * the table allows, whoever calls. The negotiation workflow runs them as activities
 * (createQuoteActivities); API tests call them directly through test/helpers/quote-runs.ts. Refusals
 * are non-retryable ApplicationFailures typed with the spec code.
 */
export function createQuoteActions(deps: QuoteActivityDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  /** Runs a guarded move; a guard that matched nothing is explained from the row (or, on a retry, found done). */
  async function move(request: QuoteActionRequest, m: TipMove, opts: ActionOptions, audit?: MoveAudit): Promise<QuoteTip> {
    return db.transaction(async (tx) => {
      const now = clock();
      const row = await moveTip(tx, request.versionId, m, now);
      if (!row) return refused(tx, m.move, request.versionId, opts.retried ? movedTo(m.move) : null);
      await audit?.(tx, row, now);
      return tipOf(row);
    });
  }

  /**
   * Why a guard matched nothing: QUOTE_NOT_FOUND, QUOTE_VERSION_SUPERSEDED (company accept / decline of
   * a version with a child) or QUOTE_INVALID_STATE. `doneAs`: on a retry, a tip already in that status
   * is our own committed attempt and is answered as done.
   */
  async function refused(tx: Sql, action: QuoteAction, versionId: string, doneAs: QuoteStatusValue | null): Promise<QuoteTip> {
    const row = await versionAsTip(tx, versionId);
    if (!row) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    if (doneAs && !row.hasChild && row.status === doneAs) return tipOf(row);
    if (row.hasChild && (action === 'accept' || action === 'decline')) {
      throw quoteRefusal('QUOTE_VERSION_SUPERSEDED', `version ${row.version} has been superseded`);
    }
    throw quoteRefusal('QUOTE_INVALID_STATE', `cannot ${action} a ${row.hasChild ? 'superseded' : row.status} version`);
  }

  const auditNote = (action: 'company.quote_decline' | 'company.quote_reject', request: NoteRequest) => (tx: Sql, row: TipRow, now: Date) =>
    writeAudit(tx, {
      ...actorOf(request.actor),
      action,
      companyId: row.companyId,
      entityType: 'quote',
      entityId: row.id,
      details: { chainRootId: row.chainRootId, version: row.version, note: request.note ?? null },
      at: now,
    });

  return {
    /** draft → submitted; needs at least one persisted item unless needs.fundingSar is set. */
    submit(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { move: 'submit' }, opts);
    },

    /** submitted → under_review, stamping reviewedBy and reviewedAt. */
    startReview(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { move: 'startReview', reviewerId: request.actor.userId }, opts);
    },

    /** Admin-authored under_review → accepted. */
    accept(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { move: 'accept' }, opts);
    },

    /** Company reject of an admin-authored under_review version: the reason goes to companyNote (only when given). */
    decline(request: NoteRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { move: 'decline', note: request.note }, opts, auditNote('company.quote_decline', request));
    },

    /** Admin reject of a draft, submitted or under_review version: the note replaces note (only when given), never companyNote. */
    reject(request: NoteRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { move: 'reject', note: request.note }, opts, auditNote('company.quote_reject', request));
    },

    /**
     * One transaction: this version `countered` and a new admin-authored version `under_review` (version
     * + 1, parent set, same chain, needs carried over, the request's items and note). The unique
     * parent_id is a second guard: a version never gets two children. A failure other than a guard's
     * refusal is QUOTE_COUNTER_FAILED (nothing was written).
     */
    async counter(request: CounterRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      try {
        return await db.transaction((tx) => counterIn(tx, request, opts));
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        if (isUniqueViolation(err, 'quote_versions_parent_id_unique'))
          throw quoteRefusal('QUOTE_INVALID_STATE', 'version already countered');
        throw quoteRefusal('QUOTE_COUNTER_FAILED', `counter not written: ${messageOf(err)}`);
      }
    },

    /**
     * Creates the company's contract from the version (the table's confirm-contract rows), in one
     * transaction holding the company row's lock: mode from the company; prepaid snapshots each
     * package's B2B price, flexible carries needs.fundingSar with no items; the version becomes
     * accepted. One active contract per company: checked under the lock, and decided by the partial
     * unique index if anything else got there first (CONTRACT_ALREADY_EXISTS). Any other failure is
     * CONTRACT_CREATE_FAILED (nothing was written).
     */
    async confirmContract(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<ConfirmOutcome> {
      try {
        return await db.transaction((tx) => confirmIn(tx, request, opts));
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        if (isUniqueViolation(err, 'contracts_company_active_unique')) {
          throw quoteRefusal('CONTRACT_ALREADY_EXISTS', 'the company already has an active contract');
        }
        throw quoteRefusal('CONTRACT_CREATE_FAILED', `contract not written: ${messageOf(err)}`);
      }
    },

    /** The chain's tip as stored (null: no such chain). */
    tip(chainRootId: string): Promise<QuoteTip | null> {
      return readQuoteTip(db, chainRootId);
    },
  };

  async function counterIn(tx: Sql, request: CounterRequest, opts: ActionOptions): Promise<QuoteTip> {
    const now = clock();
    const row = await counterTip(tx, request.versionId, now);
    if (!row) {
      if (opts.retried) {
        const child = await counteredTip(tx, request.versionId);
        if (child) return child;
      }
      return refused(tx, 'counter', request.versionId, null);
    }
    const id = randomUUID();
    await insertCounterVersion(tx, { id, parentId: row.id, note: request.note, createdBy: request.actor.userId, now });
    // The lines as the admin sent them: insertItems hands out ascending ids, and lines are read in id order.
    await insertItems(tx, id, request.items);
    await writeAudit(tx, {
      ...actorOf(request.actor),
      action: 'company.quote_counter',
      companyId: row.companyId,
      entityType: 'quote',
      entityId: id,
      details: { chainRootId: row.chainRootId, fromVersionId: row.id, version: row.version + 1, lines: request.items.length },
      at: now,
    });
    return { versionId: id, version: row.version + 1, status: 'under_review', companyAuthored: false };
  }

  /** On a retry: the version is countered and its child exists, so our first attempt committed. */
  async function counteredTip(tx: Sql, versionId: string): Promise<QuoteTip | null> {
    const child = await counteredChild(tx, versionId);
    return child ? tipOf(child) : null;
  }

  async function confirmIn(tx: Sql, request: QuoteActionRequest, opts: ActionOptions): Promise<ConfirmOutcome> {
    const companyId = await versionCompanyId(tx, request.versionId);
    if (!companyId) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    // The company row's lock orders confirms of one company (and the payment mode switch) one after another.
    const company = await findCompany(tx, companyId, { lock: true });
    const row = await lockVersionToConfirm(tx, request.versionId);
    if (!row) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    if (opts.retried) {
      const done = await contractOfQuote(tx, row.id);
      if (done) return { ...tipOf(row), contractId: done };
    }
    const eligible =
      !row.hasChild &&
      (row.status === 'accepted' || (row.parentId === null && (row.status === 'submitted' || row.status === 'under_review')));
    if (!eligible)
      throw quoteRefusal('QUOTE_INVALID_STATE', `cannot confirm a contract from a ${row.hasChild ? 'superseded' : row.status} version`);
    if (await hasActiveContract(tx, row.companyId))
      throw quoteRefusal('CONTRACT_ALREADY_EXISTS', 'the company already has an active contract');
    const mode = company?.payment_mode;
    if (!mode) throw quoteRefusal('QUOTE_INVALID_STATE', 'the company has not chosen a payment mode');
    const lines = mode === 'prepaid' ? await pricedLines(tx, row.id) : [];
    const total =
      mode === 'prepaid' ? lines.reduce((sum, line) => sum + line.qty * line.unitPriceHalalas, 0) : fundingOf(row.fundingHalalas);

    const now = clock();
    if (row.status !== 'accepted') await markAccepted(tx, row.id, now);
    const contractId = randomUUID();
    const ref = contractRef();
    await insertContract(tx, {
      id: contractId,
      ref,
      companyId: row.companyId,
      quoteVersionId: row.id,
      paymentMode: mode,
      totalHalalas: total,
      confirmedBy: request.actor.userId,
      now,
    });
    await insertContractItems(
      tx,
      contractId,
      lines.map((line) => ({ id: randomUUID(), ...line })),
    );
    await writeAudit(tx, {
      ...actorOf(request.actor),
      action: 'company.contract_confirm',
      companyId: row.companyId,
      entityType: 'contract',
      entityId: contractId,
      details: { ref, quoteVersionId: row.id, chainRootId: row.chainRootId, paymentMode: mode, totalHalalas: total, lines: lines.length },
      at: now,
    });
    return { versionId: row.id, version: row.version, status: 'accepted', companyAuthored: row.parentId === null, contractId };
  }
}

interface PricedLine {
  packageId: string;
  qty: number;
  unitPriceHalalas: number;
}

/** The version's items at each package's B2B price now; a package out of the B2B catalog fails the whole confirm. */
async function pricedLines(tx: Sql, versionId: string): Promise<PricedLine[]> {
  const rows = await versionItems(tx, versionId);
  if (rows.length === 0) throw quoteRefusal('QUOTE_INVALID_STATE', 'a prepaid contract needs quote items');
  const prices = await catalogPrices(
    tx,
    rows.map((r) => r.package_id),
  );
  const missing = rows.find((r) => !prices.has(r.package_id));
  if (missing) {
    throw quoteRefusal('CONTRACT_PACKAGE_PRICE_MISSING', 'a quoted package has no B2B price', { packageId: missing.package_id });
  }
  return rows.map((r) => ({ packageId: r.package_id, qty: r.qty, unitPriceHalalas: prices.get(r.package_id)! }));
}

function fundingOf(halalas: string | null): number {
  if (halalas === null) throw quoteRefusal('QUOTE_INVALID_STATE', 'a flexible contract needs needs.fundingSar');
  return Number(halalas);
}

const actorOf = (actor: QuoteActor) => ({ actorUserId: actor.userId, ip: actor.ip, userAgent: actor.userAgent });

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export type QuoteActions = ReturnType<typeof createQuoteActions>;

/**
 * The quote actions as activities of the negotiation workflow (workflows/quote-negotiation.ts). A
 * retried attempt (attempt > 1) recognises its own committed first attempt instead of refusing it.
 */
export function createQuoteActivities(deps: QuoteActivityDeps) {
  const actions = createQuoteActions(deps);
  const opts = (): ActionOptions => ({ retried: Context.current().info.attempt > 1 });
  return {
    quoteSubmit: (request: QuoteActionRequest) => actions.submit(request, opts()),
    quoteStartReview: (request: QuoteActionRequest) => actions.startReview(request, opts()),
    quoteCounter: (request: CounterRequest) => actions.counter(request, opts()),
    quoteAccept: (request: QuoteActionRequest) => actions.accept(request, opts()),
    quoteDecline: (request: NoteRequest) => actions.decline(request, opts()),
    quoteReject: (request: NoteRequest) => actions.reject(request, opts()),
    quoteConfirmContract: (request: QuoteActionRequest) => actions.confirmContract(request, opts()),
    quoteTip: (input: { chainRootId: string }) => actions.tip(input.chainRootId),
  };
}

export type QuoteActivities = ReturnType<typeof createQuoteActivities>;
