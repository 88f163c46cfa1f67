import { randomUUID } from 'node:crypto';
import { query, type Sql } from '../db/sql';
import type { QuotePreference, QuoteStatus } from '../entities';
import type { QuoteLine } from '../../workflows/contracts/quote-contract';

/**
 * The SQL of quote chains (quote_versions, quote_items) and of the B2B catalog they quote from.
 * A chain's tip is its version without a child: `not exists` on the unique parent_id index.
 */

// --- The B2B catalog -----------------------------------------------------------------------------

export interface CatalogDbRow {
  id: string;
  name_en: string;
  name_ar: string;
  description_en: string | null;
  description_ar: string | null;
  data_amount_mb: number;
  voice_minutes: number;
  sms_count: number;
  validity_days: number;
  /** bigint, as text. */
  price_b2b_halalas: string;
  operator_name_en: string;
  operator_name_ar: string;
}

/**
 * What may be quoted: an active package with a B2B price, of an active telecom operator (a package
 * whose operator is switched off cannot be activated, so it is not offered either).
 */
const IN_B2B_CATALOG = `p.is_active and p.price_b2b_halalas is not null and o.is_active and o.kind = 'telecom'`;

/** The B2B price (halalas) of each of `ids` still in the B2B catalog (a link mint's, an assignment's, a contract's). */
export async function catalogPrices(sql: Sql, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.rows<{ id: string; price: string }>(
    query(
      'quotes.catalog-prices',
      `select p.id, p.price_b2b_halalas as price from packages p join operators o on o.id = p.operator_id
        where p.id = any($1::uuid[]) and ${IN_B2B_CATALOG}`,
    ),
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.price)]));
}

/** Cheapest first, then by id (a stable order for equal prices). */
export async function catalogRows(sql: Sql): Promise<CatalogDbRow[]> {
  return sql.rows<CatalogDbRow>(
    query(
      'quotes.catalog',
      `select p.id, p.name_en, p.name_ar, p.description_en, p.description_ar, p.data_amount_mb, p.voice_minutes, p.sms_count,
              p.validity_days, p.price_b2b_halalas, o.name_en as operator_name_en, o.name_ar as operator_name_ar
         from packages p join operators o on o.id = p.operator_id
        where ${IN_B2B_CATALOG}
        order by p.price_b2b_halalas asc, p.id asc`,
    ),
  );
}

/** Those of `ids` that are not in the B2B catalog (unknown, inactive, or without a B2B price), in the order given. */
export async function packagesOutsideCatalog(sql: Sql, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await sql.rows<{ id: string }>(
    query(
      'quotes.in-catalog',
      `select p.id from packages p join operators o on o.id = p.operator_id where p.id = any($1::uuid[]) and ${IN_B2B_CATALOG}`,
    ),
    [ids],
  );
  const inCatalog = new Set(found.map((r) => r.id));
  return ids.filter((id) => !inCatalog.has(id.toLowerCase()));
}

// --- Versions ------------------------------------------------------------------------------------

export interface VersionDbRow {
  id: string;
  company_id: string;
  chain_root_id: string;
  version: number;
  parent_id: string | null;
  status: QuoteStatus;
  needs_user_count: number | null;
  needs_preference: QuotePreference | null;
  /** bigint: the driver answers a string. */
  needs_budget_halalas: string | number | null;
  needs_funding_halalas: string | number | null;
  note: string | null;
  company_note: string | null;
  reviewed_by: string | null;
  reviewed_at: Date | string | null;
  created_by: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = [
  'id',
  'company_id',
  'chain_root_id',
  'version',
  'parent_id',
  'status',
  'needs_user_count',
  'needs_preference',
  'needs_budget_halalas',
  'needs_funding_halalas',
  'note',
  'company_note',
  'reviewed_by',
  'reviewed_at',
  'created_by',
  'created_at',
  'updated_at',
];
const cols = (alias: string) => COLUMNS.map((c) => `${alias}.${c}`).join(', ');
/** The tip check: the version has no child (only the tip is actionable), answered by the parent_id unique index. */
const NO_CHILD = 'not exists (select 1 from quote_versions ch where ch.parent_id = v.id)';

export interface VersionScope {
  /** Portal: only this company's versions. */
  companyId?: string;
  /** Administration: drafts are private to the company, so they are not found. */
  hideDrafts?: boolean;
  /** Take the row for update. */
  lock?: boolean;
}

/** One version by id within the scope, or null (the caller checked the id is a UUID). */
export async function findVersion(sql: Sql, id: string, scope: VersionScope): Promise<VersionDbRow | null> {
  const where = ['v.id = $1'];
  const params: unknown[] = [id];
  if (scope.companyId) {
    params.push(scope.companyId);
    where.push(`v.company_id = $${params.length}`);
  }
  if (scope.hideDrafts) where.push(`v.status <> 'draft'`);
  // One name per scope's text: company, staff and lock make eight variants.
  const name = `quotes.find-version${scope.companyId ? '-company' : ''}${scope.hideDrafts ? '-staff' : ''}${scope.lock ? '-lock' : ''}`;
  const row = await sql.one<VersionDbRow>(
    query(name, `select ${cols('v')} from quote_versions v where ${where.join(' and ')}${scope.lock ? ' for update' : ''}`),
    params,
  );
  return row ?? null;
}

/** Every version of these chains, by chain and oldest first (the (chain_root_id, version) unique index). */
export async function chainVersions(sql: Sql, chainRootIds: readonly string[]): Promise<VersionDbRow[]> {
  if (chainRootIds.length === 0) return [];
  return sql.rows<VersionDbRow>(
    query(
      'quotes.chain-versions',
      `select ${cols('v')} from quote_versions v where v.chain_root_id = any($1::uuid[]) order by v.chain_root_id, v.version`,
    ),
    [chainRootIds],
  );
}

export interface ItemDbRow {
  id: string;
  package_id: string;
  qty: number;
}

/** A version's lines in the order they were sent (their ids are handed out in ascending order, see insertItems). */
export async function versionItems(sql: Sql, versionId: string): Promise<ItemDbRow[]> {
  return sql.rows<ItemDbRow>(
    query('quotes.version-items', 'select id, package_id, qty from quote_items where quote_version_id = $1 order by id'),
    [versionId],
  );
}

export interface NeedsColumns {
  userCount: number | null;
  preference: QuotePreference | null;
  budgetHalalas: number | null;
  fundingHalalas: number | null;
}

/** A chain's first version: `draft`, version 1, no parent, its own id as the chain root. */
export async function insertDraft(
  sql: Sql,
  d: { id: string; companyId: string; createdBy: string; needs: NeedsColumns; now: Date },
): Promise<void> {
  await sql.exec(
    query(
      'quotes.insert-draft',
      `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference,
                                   needs_budget_halalas, needs_funding_halalas, created_by, created_at, updated_at)
       values ($1, $2, $1, 1, null, 'draft', $3, $4, $5, $6, $7, $8, $8)`,
    ),
    [d.id, d.companyId, d.needs.userCount, d.needs.preference, d.needs.budgetHalalas, d.needs.fundingHalalas, d.createdBy, d.now],
  );
}

/** Replaces a draft's needs (its items are replaced by the caller). */
export async function updateDraftNeeds(sql: Sql, id: string, needs: NeedsColumns, now: Date): Promise<void> {
  await sql.exec(
    query(
      'quotes.update-draft-needs',
      `update quote_versions set needs_user_count = $1, needs_preference = $2, needs_budget_halalas = $3, needs_funding_halalas = $4,
              updated_at = $5 where id = $6`,
    ),
    [needs.userCount, needs.preference, needs.budgetHalalas, needs.fundingHalalas, now, id],
  );
}

export async function deleteItems(sql: Sql, versionId: string): Promise<void> {
  await sql.exec(query('quotes.delete-items', 'delete from quote_items where quote_version_id = $1'), [versionId]);
}

/**
 * A version's lines in one statement. quote_items has no position column: the ids are drawn, sorted,
 * and handed out in the order of `lines`, so ordering by id gives the lines back as they were sent.
 */
export async function insertItems(sql: Sql, versionId: string, lines: readonly QuoteLine[]): Promise<void> {
  if (lines.length === 0) return;
  const ids = lines.map(() => randomUUID()).sort();
  await sql.exec(
    query(
      'quotes.insert-items',
      `insert into quote_items (id, quote_version_id, package_id, qty)
       select t.id, $1, t.package_id, t.qty from unnest($2::uuid[], $3::uuid[], $4::int[]) as t(id, package_id, qty)`,
    ),
    [versionId, ids, lines.map((l) => l.packageId), lines.map((l) => l.qty)],
  );
}

// --- The tip and its moves (the negotiation run's activities, activities/quotes.ts) ---------------

/** A version as the run sees it: what makes its tip, and where it belongs. */
export interface TipRow {
  id: string;
  version: number;
  status: QuoteStatus;
  parentId: string | null;
  companyId: string;
  chainRootId: string;
}

const TIP_COLUMNS = `v.id, v.version, v.status, v.parent_id as "parentId", v.company_id as "companyId", v.chain_root_id as "chainRootId"`;

/** The chain's tip (its version without a child), or undefined for an unknown chain. */
export async function chainTip(sql: Sql, chainRootId: string): Promise<TipRow | undefined> {
  return sql.one<TipRow>(
    query(
      'quotes.chain-tip',
      `select ${TIP_COLUMNS} from quote_versions v where v.chain_root_id = $1 and ${NO_CHILD} order by v.version desc limit 1`,
    ),
    [chainRootId],
  );
}

/** The status moves of a tip that write no new version (counter and confirm have their own statements). */
export type TipMove =
  | { move: 'submit' | 'accept' }
  | { move: 'startReview'; reviewerId: string }
  /** A note replaces the stored one only when given. */
  | { move: 'decline' | 'reject'; note: string | undefined };

/**
 * Each move's new status, its extra assignments, and the states it may start from (the status
 * table's "from" column). `$1` is the version, `$2` the instant; a move's own values follow.
 */
const MOVES: Record<TipMove['move'], { to: QuoteStatus; where: string; set?: string }> = {
  /** draft → submitted; needs at least one persisted item unless needs.fundingSar is set. */
  submit: {
    to: 'submitted',
    where: `v.status = 'draft' and (v.needs_funding_halalas is not null or exists (select 1 from quote_items i where i.quote_version_id = v.id))`,
  },
  /** submitted → under_review, stamping reviewedBy and reviewedAt. */
  startReview: { to: 'under_review', where: `v.status = 'submitted'`, set: ', reviewed_by = $3, reviewed_at = $2' },
  /** Admin-authored under_review → accepted. */
  accept: { to: 'accepted', where: `v.status = 'under_review' and v.parent_id is not null` },
  /** Company reject of an admin-authored under_review version: the reason goes to companyNote. */
  decline: {
    to: 'rejected',
    where: `v.status = 'under_review' and v.parent_id is not null`,
    set: ', company_note = case when $3::boolean then $4 else company_note end',
  },
  /** Admin reject of a draft, submitted or under_review version: the note replaces note, never companyNote. */
  reject: {
    to: 'rejected',
    where: `v.status in ('draft', 'submitted', 'under_review')`,
    set: ', note = case when $3::boolean then $4 else note end',
  },
};

/** The status a move leaves the tip in. */
export const movedTo = (move: TipMove['move']): QuoteStatus => MOVES[move].to;

const MOVE_STATEMENTS = Object.fromEntries(
  Object.entries(MOVES).map(([move, m]) => [
    move,
    query(
      `quotes.move-${move}`,
      `update quote_versions v set status = '${m.to}', updated_at = $2${m.set ?? ''}
        where v.id = $1 and ${m.where} and ${NO_CHILD}
        returning ${TIP_COLUMNS}`,
    ),
  ]),
) as Record<TipMove['move'], ReturnType<typeof query>>;

/**
 * The move, guarded in SQL (the version, a state the table allows, no child), so it happens only from
 * where the table allows whoever calls; undefined when the guard matched nothing.
 */
export async function moveTip(sql: Sql, versionId: string, m: TipMove, now: Date): Promise<TipRow | undefined> {
  const own =
    m.move === 'startReview' ? [m.reviewerId] : m.move === 'decline' || m.move === 'reject' ? [m.note !== undefined, m.note ?? null] : [];
  return sql.one<TipRow>(MOVE_STATEMENTS[m.move], [versionId, now, ...own]);
}

/** A version with whether it has a child (a guard's refusal is explained from it). */
export async function versionAsTip(sql: Sql, versionId: string): Promise<(TipRow & { hasChild: boolean }) | undefined> {
  return sql.one(
    query('quotes.version-as-tip', `select ${TIP_COLUMNS}, not ${NO_CHILD} as "hasChild" from quote_versions v where v.id = $1`),
    [versionId],
  );
}

/** submitted or under_review → countered, guarded like every move; undefined when the guard matched nothing. */
export async function counterTip(sql: Sql, versionId: string, now: Date): Promise<TipRow | undefined> {
  return sql.one<TipRow>(
    query(
      'quotes.counter-tip',
      `update quote_versions v set status = 'countered', updated_at = $2
        where v.id = $1 and v.status in ('submitted', 'under_review') and ${NO_CHILD}
        returning ${TIP_COLUMNS}`,
    ),
    [versionId, now],
  );
}

/**
 * The countered version's child: version + 1, `under_review`, admin-authored, its needs carried over.
 * The unique parent_id refuses a second child (quote_versions_parent_id_unique).
 */
export async function insertCounterVersion(
  sql: Sql,
  c: { id: string; parentId: string; note: string | null; createdBy: string; now: Date },
): Promise<void> {
  await sql.exec(
    query(
      'quotes.insert-counter',
      `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference,
                                   needs_budget_halalas, needs_funding_halalas, note, created_by, created_at, updated_at)
       select $1, p.company_id, p.chain_root_id, p.version + 1, p.id, 'under_review', p.needs_user_count, p.needs_preference,
              p.needs_budget_halalas, p.needs_funding_halalas, $3, $4, $5, $5
         from quote_versions p where p.id = $2`,
    ),
    [c.id, c.parentId, c.note, c.createdBy, c.now],
  );
}

/** The child of a countered version, while it is the tip (a retried counter finds its own). */
export async function counteredChild(sql: Sql, versionId: string): Promise<TipRow | undefined> {
  return sql.one<TipRow>(
    query(
      'quotes.countered-child',
      `select ${TIP_COLUMNS}
         from quote_versions v join quote_versions p on p.id = v.parent_id
        where v.parent_id = $1 and p.status = 'countered' and ${NO_CHILD}`,
    ),
    [versionId],
  );
}

export async function versionCompanyId(sql: Sql, versionId: string): Promise<string | undefined> {
  const row = await sql.one<{ companyId: string }>(
    query('quotes.version-company', 'select company_id as "companyId" from quote_versions where id = $1'),
    [versionId],
  );
  return row?.companyId;
}

/** The version a contract is confirmed from, locked, with its funding need (bigint: text) and whether it has a child. */
export async function lockVersionToConfirm(
  sql: Sql,
  versionId: string,
): Promise<(TipRow & { hasChild: boolean; fundingHalalas: string | null }) | undefined> {
  return sql.one(
    query(
      'quotes.lock-to-confirm',
      `select ${TIP_COLUMNS}, v.needs_funding_halalas as "fundingHalalas", not ${NO_CHILD} as "hasChild"
         from quote_versions v where v.id = $1 for update`,
    ),
    [versionId],
  );
}

export async function markAccepted(sql: Sql, versionId: string, now: Date): Promise<void> {
  await sql.exec(query('quotes.mark-accepted', `update quote_versions set status = 'accepted', updated_at = $2 where id = $1`), [
    versionId,
    now,
  ]);
}

// --- Lists ---------------------------------------------------------------------------------------

export interface TipPage<R> {
  rows: R[];
  total: number;
}

/**
 * A company's chains by their live version (the tip), newest first: the (company_id, created_at desc,
 * id desc) index gives the order, the parent_id unique index answers "has no child" per row.
 */
export async function companyTips(
  sql: Sql,
  f: { companyId: string; status?: QuoteStatus; limit: number; offset: number },
): Promise<TipPage<VersionDbRow>> {
  const where = ['v.company_id = $1', NO_CHILD];
  const params: unknown[] = [f.companyId];
  if (f.status) {
    params.push(f.status);
    where.push(`v.status = $${params.length}`);
  }
  const clause = where.join(' and ');
  const n = params.length;
  const rows = await sql.rows<VersionDbRow>(
    `select ${cols('v')} from quote_versions v where ${clause} order by v.created_at desc, v.id desc limit $${n + 1} offset $${n + 2}`,
    [...params, f.limit, f.offset],
  );
  const count = await sql.one<{ total: number }>(`select count(*)::int as total from quote_versions v where ${clause}`, params);
  return { rows, total: count!.total };
}

/** Statuses a tip outside the company's hands can have: never `draft` (private), never `countered` (it has a child). */
const QUEUE_STATUSES = ['submitted', 'under_review', 'accepted', 'rejected', 'expired'];

/**
 * The administrators' queue: chains whose tip is not a draft, grouped by company name A to Z (case
 * folded; the company id keeps two companies of one name apart), then latest activity (the tip's
 * updated_at) first. The page walks companies in that order (companies_name_order_index) and reads
 * each one's tips by its index, stopping once the page is full, instead of joining and sorting every
 * tip of the queue per request. The count reads the tips alone, starting from the status index.
 */
export async function queueTips(
  sql: Sql,
  f: { companyId?: string; status?: QuoteStatus; limit: number; offset: number },
): Promise<TipPage<VersionDbRow & { company_name: string }>> {
  const where = [`v.status in (${QUEUE_STATUSES.map((s) => `'${s}'`).join(', ')})`, NO_CHILD];
  const params: unknown[] = [];
  if (f.status) {
    params.push(f.status);
    where.push(`v.status = $${params.length}`);
  }
  if (f.companyId) {
    params.push(f.companyId);
    where.push(`v.company_id = $${params.length}`);
  }
  const clause = where.join(' and ');
  const n = params.length;
  const rows = await sql.rows<VersionDbRow & { company_name: string }>(
    `select ${cols('v')}, c.name as company_name
       from companies c
       cross join lateral (select * from quote_versions v where v.company_id = c.id and ${clause}) v
      order by lower(c.name) asc, c.name asc, c.id asc, v.updated_at desc, v.id desc
      limit $${n + 1} offset $${n + 2}`,
    [...params, f.limit, f.offset],
  );
  const count = await sql.one<{ total: number }>(`select count(*)::int as total from quote_versions v where ${clause}`, params);
  return { rows, total: count!.total };
}
