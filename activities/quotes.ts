import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeAudit } from '../src/audit/writer';
import { isUniqueViolation } from '../src/db/sql';
import { hasActiveContract } from '../src/companies/repository';
import { findCompany } from '../src/companies/repository';
import { catalogPrices, insertItems } from '../src/quotes/repository';
import { readQuoteTip } from '../src/temporal/quote-tip';
import type {
  CounterRequest,
  NoteRequest,
  QuoteAction,
  QuoteActionRequest,
  QuoteActor,
  QuoteStatusValue,
  QuoteTip,
} from '../workflows/quote-contract';
import type { QuoteRefusalCode } from '../workflows/quote-rules';
import { sqlOf } from '../src/db/transition';

export interface QuoteActivityDeps {
  orm: MikroORM;
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

/** A version row as the guarded updates return it. */
interface VersionRow {
  id: string;
  version: number;
  status: QuoteStatusValue;
  parent_id: string | null;
  company_id: string;
  chain_root_id: string;
}
const RETURNING = 'returning v.id, v.version, v.status, v.parent_id, v.company_id, v.chain_root_id';
/** The tip check: the version has no child (only the tip is actionable). */
const IS_TIP = 'not exists (select 1 from quote_versions c where c.parent_id = v.id)';

const tipOf = (row: VersionRow): QuoteTip => ({
  versionId: row.id,
  version: row.version,
  status: row.status,
  companyAuthored: row.parent_id === null,
});

/** One status move of the tip: the new status, extra assignments, and the states it may start from. */
interface Move {
  action: Exclude<QuoteAction, 'counter' | 'confirmContract'>;
  to: QuoteStatusValue;
  /** SQL condition on `v` beyond the tip check (the table's "from" column). */
  where: string;
  /** Extra `, col = ?` assignments and their parameters. */
  set?: string;
  setParams?: unknown[];
  audit?: (tx: EntityManager, row: VersionRow, now: Date) => Promise<unknown>;
}

/**
 * The quote actions, each one transaction whose writes are guarded in SQL (`where id = ? and status …
 * and no child`), so a write happens only from the state the table allows, whoever calls. The
 * negotiation workflow runs them as activities (createQuoteActivities); API tests call them directly
 * through test/helpers/quote-runs.ts. Refusals are non-retryable ApplicationFailures typed with the spec code.
 */
export function createQuoteActions(deps: QuoteActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  const em = () => deps.orm.em.fork();

  /** Runs a guarded move; a guard that matched nothing is explained from the row (or, on a retry, found done). */
  async function move(request: QuoteActionRequest, spec: Move, opts: ActionOptions): Promise<QuoteTip> {
    return em().transactional(async (tx) => {
      const now = clock();
      const [row] = await tx.execute<VersionRow[]>(
        `update quote_versions v set status = ?, updated_at = ?${spec.set ?? ''}
          where v.id = ? and ${spec.where} and ${IS_TIP} ${RETURNING}`,
        [spec.to, now, ...(spec.setParams ?? []), request.versionId],
      );
      if (!row) return refused(tx, spec.action, request.versionId, opts.retried ? spec.to : null);
      await spec.audit?.(tx, row, now);
      return tipOf(row);
    });
  }

  /**
   * Why a guard matched nothing: QUOTE_NOT_FOUND, QUOTE_VERSION_SUPERSEDED (company accept / decline of
   * a version with a child) or QUOTE_INVALID_STATE. `doneAs`: on a retry, a tip already in that status
   * is our own committed attempt and is answered as done.
   */
  async function refused(tx: EntityManager, action: QuoteAction, versionId: string, doneAs: QuoteStatusValue | null): Promise<QuoteTip> {
    const [row] = await tx.execute<(VersionRow & { has_child: boolean })[]>(
      `select v.id, v.version, v.status, v.parent_id, v.company_id, v.chain_root_id, not ${IS_TIP} as has_child
         from quote_versions v where v.id = ?`,
      [versionId],
    );
    if (!row) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    if (doneAs && !row.has_child && row.status === doneAs) return tipOf(row);
    if (row.has_child && (action === 'accept' || action === 'decline')) {
      throw quoteRefusal('QUOTE_VERSION_SUPERSEDED', `version ${row.version} has been superseded`);
    }
    throw quoteRefusal('QUOTE_INVALID_STATE', `cannot ${action} a ${row.has_child ? 'superseded' : row.status} version`);
  }

  const auditNote =
    (action: 'company.quote_decline' | 'company.quote_reject', request: NoteRequest) => (tx: EntityManager, row: VersionRow, now: Date) =>
      writeAudit(sqlOf(tx), {
        ...actorOf(request.actor),
        action,
        companyId: row.company_id,
        entityType: 'quote',
        entityId: row.id,
        details: { chainRootId: row.chain_root_id, version: row.version, note: request.note ?? null },
        at: now,
      });

  /** A note replaces the stored one only when given (`case when ? then ? else col end`). */
  const noteAssignment = (column: 'note' | 'company_note', note: string | undefined) => ({
    set: `, ${column} = case when ?::boolean then ? else ${column} end`,
    setParams: [note !== undefined, note ?? null],
  });

  return {
    /** draft → submitted; needs at least one persisted item unless needs.fundingSar is set. */
    submit(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(
        request,
        {
          action: 'submit',
          to: 'submitted',
          where: `v.status = 'draft' and (v.needs_funding_halalas is not null or exists (select 1 from quote_items i where i.quote_version_id = v.id))`,
        },
        opts,
      );
    },

    /** submitted → under_review, stamping reviewedBy and reviewedAt. */
    startReview(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(
        request,
        {
          action: 'startReview',
          to: 'under_review',
          where: `v.status = 'submitted'`,
          set: ', reviewed_by = ?, reviewed_at = ?',
          setParams: [request.actor.userId, clock()],
        },
        opts,
      );
    },

    /** Admin-authored under_review → accepted. */
    accept(request: QuoteActionRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(request, { action: 'accept', to: 'accepted', where: `v.status = 'under_review' and v.parent_id is not null` }, opts);
    },

    /** Company reject of an admin-authored under_review version: the reason goes to companyNote (only when given). */
    decline(request: NoteRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(
        request,
        {
          action: 'decline',
          to: 'rejected',
          where: `v.status = 'under_review' and v.parent_id is not null`,
          ...noteAssignment('company_note', request.note),
          audit: auditNote('company.quote_decline', request),
        },
        opts,
      );
    },

    /** Admin reject of a draft, submitted or under_review version: the note replaces note (only when given), never companyNote. */
    reject(request: NoteRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      return move(
        request,
        {
          action: 'reject',
          to: 'rejected',
          where: `v.status in ('draft', 'submitted', 'under_review')`,
          ...noteAssignment('note', request.note),
          audit: auditNote('company.quote_reject', request),
        },
        opts,
      );
    },

    /**
     * One transaction: this version `countered` and a new admin-authored version `under_review` (version
     * + 1, parent set, same chain, needs carried over, the request's items and note). The unique
     * parent_id is a second guard: a version never gets two children. A failure other than a guard's
     * refusal is QUOTE_COUNTER_FAILED (nothing was written).
     */
    async counter(request: CounterRequest, opts: ActionOptions = {}): Promise<QuoteTip> {
      try {
        return await em().transactional((tx) => counterIn(tx, request, opts));
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
        return await em().transactional((tx) => confirmIn(tx, request, opts));
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
      return readQuoteTip(sqlOf(em()), chainRootId);
    },
  };

  async function counterIn(tx: EntityManager, request: CounterRequest, opts: ActionOptions): Promise<QuoteTip> {
    const now = clock();
    const [row] = await tx.execute<(VersionRow & Needs)[]>(
      `update quote_versions v set status = 'countered', updated_at = ?
        where v.id = ? and v.status in ('submitted', 'under_review') and ${IS_TIP}
        ${RETURNING}, v.needs_user_count, v.needs_preference, v.needs_budget_halalas, v.needs_funding_halalas`,
      [now, request.versionId],
    );
    if (!row) {
      if (opts.retried) {
        const child = await counteredChild(tx, request.versionId);
        if (child) return child;
      }
      return refused(tx, 'counter', request.versionId, null);
    }
    const id = randomUUID();
    await tx.execute(
      `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference,
                                   needs_budget_halalas, needs_funding_halalas, note, created_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, 'under_review', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        row.company_id,
        row.chain_root_id,
        row.version + 1,
        row.id,
        row.needs_user_count,
        row.needs_preference,
        row.needs_budget_halalas,
        row.needs_funding_halalas,
        request.note,
        request.actor.userId,
        now,
        now,
      ],
    );
    // The lines as the admin sent them: insertItems hands out ascending ids, and lines are read in id order.
    await insertItems(tx, id, request.items);
    await writeAudit(sqlOf(tx), {
      ...actorOf(request.actor),
      action: 'company.quote_counter',
      companyId: row.company_id,
      entityType: 'quote',
      entityId: id,
      details: { chainRootId: row.chain_root_id, fromVersionId: row.id, version: row.version + 1, lines: request.items.length },
      at: now,
    });
    return { versionId: id, version: row.version + 1, status: 'under_review', companyAuthored: false };
  }

  /** On a retry: the version is countered and its child exists, so our first attempt committed. */
  async function counteredChild(tx: EntityManager, versionId: string): Promise<QuoteTip | null> {
    const [child] = await tx.execute<VersionRow[]>(
      `select v.id, v.version, v.status, v.parent_id, v.company_id, v.chain_root_id
         from quote_versions v join quote_versions p on p.id = v.parent_id
        where v.parent_id = ? and p.status = 'countered' and ${IS_TIP}`,
      [versionId],
    );
    return child ? tipOf(child) : null;
  }

  async function confirmIn(tx: EntityManager, request: QuoteActionRequest, opts: ActionOptions): Promise<ConfirmOutcome> {
    const [owner] = await tx.execute<{ company_id: string }[]>('select company_id from quote_versions where id = ?', [request.versionId]);
    if (!owner) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    // The company row's lock orders confirms of one company (and the payment mode switch) one after another.
    const company = await findCompany(sqlOf(tx), owner.company_id, { lock: true });
    const [row] = await tx.execute<(VersionRow & { has_child: boolean; needs_funding_halalas: string | null })[]>(
      `select v.id, v.version, v.status, v.parent_id, v.company_id, v.chain_root_id, v.needs_funding_halalas, not ${IS_TIP} as has_child
         from quote_versions v where v.id = ? for update`,
      [request.versionId],
    );
    if (!row) throw quoteRefusal('QUOTE_NOT_FOUND', 'Quote not found');
    if (opts.retried) {
      const [done] = await tx.execute<{ id: string }[]>('select id from contracts where quote_request_id = ?', [row.id]);
      if (done) return { ...tipOf(row), contractId: done.id };
    }
    const eligible =
      !row.has_child &&
      (row.status === 'accepted' || (row.parent_id === null && (row.status === 'submitted' || row.status === 'under_review')));
    if (!eligible)
      throw quoteRefusal('QUOTE_INVALID_STATE', `cannot confirm a contract from a ${row.has_child ? 'superseded' : row.status} version`);
    if (await hasActiveContract(sqlOf(tx), row.company_id))
      throw quoteRefusal('CONTRACT_ALREADY_EXISTS', 'the company already has an active contract');
    const mode = company?.payment_mode;
    if (!mode) throw quoteRefusal('QUOTE_INVALID_STATE', 'the company has not chosen a payment mode');
    const lines = mode === 'prepaid' ? await pricedLines(tx, row.id) : [];
    const total =
      mode === 'prepaid' ? lines.reduce((sum, line) => sum + line.qty * line.unitPriceHalalas, 0) : fundingOf(row.needs_funding_halalas);

    const now = clock();
    if (row.status !== 'accepted') {
      await tx.execute(`update quote_versions set status = 'accepted', updated_at = ? where id = ?`, [now, row.id]);
    }
    const contractId = randomUUID();
    const ref = contractRef();
    await tx.execute(
      `insert into contracts (id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_by, confirmed_at, created_at, updated_at)
       values (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?)`,
      [contractId, ref, row.company_id, row.id, mode, total, request.actor.userId, now, now, now],
    );
    if (lines.length > 0) {
      await tx.execute(
        `insert into contract_items (id, contract_id, package_id, qty, unit_price_halalas) values ${lines.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        lines.flatMap((line) => [randomUUID(), contractId, line.packageId, line.qty, line.unitPriceHalalas]),
      );
    }
    await writeAudit(sqlOf(tx), {
      ...actorOf(request.actor),
      action: 'company.contract_confirm',
      companyId: row.company_id,
      entityType: 'contract',
      entityId: contractId,
      details: { ref, quoteVersionId: row.id, chainRootId: row.chain_root_id, paymentMode: mode, totalHalalas: total, lines: lines.length },
      at: now,
    });
    return { versionId: row.id, version: row.version, status: 'accepted', companyAuthored: row.parent_id === null, contractId };
  }
}

interface Needs {
  needs_user_count: number | null;
  needs_preference: string | null;
  needs_budget_halalas: string | null;
  needs_funding_halalas: string | null;
}

interface PricedLine {
  packageId: string;
  qty: number;
  unitPriceHalalas: number;
}

/** The version's items at each package's B2B price now; a package out of the B2B catalog fails the whole confirm. */
async function pricedLines(tx: EntityManager, versionId: string): Promise<PricedLine[]> {
  const rows = await tx.execute<{ package_id: string; qty: number }[]>(
    'select package_id, qty from quote_items where quote_version_id = ? order by id',
    [versionId],
  );
  if (rows.length === 0) throw quoteRefusal('QUOTE_INVALID_STATE', 'a prepaid contract needs quote items');
  const prices = await catalogPrices(
    sqlOf(tx),
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
