import { uuidArray } from '../db/arrays';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, type Sql } from '../db/sql';
import type { QuotePreference, QuoteStatus } from '../entities';
import type { QuoteLine } from '../../workflows/quote-contract';

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
  price_sar_b2b: string;
  operator_name_en: string;
  operator_name_ar: string;
}

/**
 * What may be quoted: an active package with a B2B price, of an active telecom operator (a package
 * whose operator is switched off cannot be activated, so it is not offered either).
 */
const IN_B2B_CATALOG = `p.is_active and p.price_sar_b2b is not null and o.is_active and o.kind = 'telecom'`;

/** The B2B price (halalas) of each of `ids` still in the B2B catalog (a link mint's, an assignment's, a contract's). */
export async function catalogPrices(sql: Sql, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.rows<{ id: string; price: string }>(
    query(
      'quotes.catalog-prices',
      `select p.id, (p.price_sar_b2b * 100)::bigint as price from packages p join operators o on o.id = p.operator_id
        where p.id = any($1::uuid[]) and ${IN_B2B_CATALOG}`,
    ),
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.price)]));
}

/** Cheapest first, then by id (a stable order for equal prices). */
export async function catalogRows(em: EntityManager): Promise<CatalogDbRow[]> {
  return em.execute<CatalogDbRow[]>(
    `select p.id, p.name_en, p.name_ar, p.description_en, p.description_ar, p.data_amount_mb, p.voice_minutes, p.sms_count,
            p.validity_days, p.price_sar_b2b::text as price_sar_b2b, o.name_en as operator_name_en, o.name_ar as operator_name_ar
       from packages p join operators o on o.id = p.operator_id
      where ${IN_B2B_CATALOG}
      order by p.price_sar_b2b asc, p.id asc`,
  );
}

/** Those of `ids` that are not in the B2B catalog (unknown, inactive, or without a B2B price), in the order given. */
export async function packagesOutsideCatalog(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await em.execute<{ id: string }[]>(
    `select p.id from packages p join operators o on o.id = p.operator_id where p.id = any(?::uuid[]) and ${IN_B2B_CATALOG}`,
    [uuidArray(ids)],
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
export async function findVersion(em: EntityManager, id: string, scope: VersionScope): Promise<VersionDbRow | null> {
  const where = ['v.id = ?'];
  const params: unknown[] = [id];
  if (scope.companyId) {
    where.push('v.company_id = ?');
    params.push(scope.companyId);
  }
  if (scope.hideDrafts) where.push(`v.status <> 'draft'`);
  const [row] = await em.execute<VersionDbRow[]>(
    `select ${cols('v')} from quote_versions v where ${where.join(' and ')}${scope.lock ? ' for update' : ''}`,
    params,
  );
  return row ?? null;
}

/** Every version of these chains, by chain and oldest first (the (chain_root_id, version) unique index). */
export async function chainVersions(em: EntityManager, chainRootIds: readonly string[]): Promise<VersionDbRow[]> {
  if (chainRootIds.length === 0) return [];
  return em.execute<VersionDbRow[]>(
    `select ${cols('v')} from quote_versions v where v.chain_root_id = any(?::uuid[]) order by v.chain_root_id, v.version`,
    [uuidArray(chainRootIds)],
  );
}

export interface ItemDbRow {
  id: string;
  package_id: string;
  qty: number;
}

/** A version's lines in the order they were sent (their ids are handed out in ascending order, see insertItems). */
export async function versionItems(em: EntityManager, versionId: string): Promise<ItemDbRow[]> {
  return em.execute<ItemDbRow[]>('select id, package_id, qty from quote_items where quote_version_id = ? order by id', [versionId]);
}

export interface NeedsColumns {
  userCount: number | null;
  preference: QuotePreference | null;
  budgetHalalas: number | null;
  fundingHalalas: number | null;
}

/** A chain's first version: `draft`, version 1, no parent, its own id as the chain root. */
export async function insertDraft(
  em: EntityManager,
  d: { id: string; companyId: string; createdBy: string; needs: NeedsColumns; now: Date },
): Promise<void> {
  await em.execute(
    `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, needs_preference,
                                 needs_budget_halalas, needs_funding_halalas, created_by, created_at, updated_at)
     values (?, ?, ?, 1, null, 'draft', ?, ?, ?, ?, ?, ?, ?)`,
    [
      d.id,
      d.companyId,
      d.id,
      d.needs.userCount,
      d.needs.preference,
      d.needs.budgetHalalas,
      d.needs.fundingHalalas,
      d.createdBy,
      d.now,
      d.now,
    ],
  );
}

/** Replaces a draft's needs (its items are replaced by the caller). */
export async function updateDraftNeeds(em: EntityManager, id: string, needs: NeedsColumns, now: Date): Promise<void> {
  await em.execute(
    `update quote_versions set needs_user_count = ?, needs_preference = ?, needs_budget_halalas = ?, needs_funding_halalas = ?,
            updated_at = ? where id = ?`,
    [needs.userCount, needs.preference, needs.budgetHalalas, needs.fundingHalalas, now, id],
  );
}

export async function deleteItems(em: EntityManager, versionId: string): Promise<void> {
  await em.execute('delete from quote_items where quote_version_id = ?', [versionId]);
}

/**
 * A version's lines in one statement. quote_items has no position column: the ids are drawn, sorted,
 * and handed out in the order of `lines`, so ordering by id gives the lines back as they were sent.
 */
export async function insertItems(em: EntityManager, versionId: string, lines: readonly QuoteLine[]): Promise<void> {
  if (lines.length === 0) return;
  const ids = lines.map(() => randomUUID()).sort();
  await em.execute(
    `insert into quote_items (id, quote_version_id, package_id, qty)
     select t.id, ?, t.package_id, t.qty from unnest(?::uuid[], ?::uuid[], ?::int[]) as t(id, package_id, qty)`,
    [versionId, uuidArray(ids), uuidArray(lines.map((l) => l.packageId)), `{${lines.map((l) => l.qty).join(',')}}`],
  );
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
  em: EntityManager,
  f: { companyId: string; status?: QuoteStatus; limit: number; offset: number },
): Promise<TipPage<VersionDbRow>> {
  const where = ['v.company_id = ?', NO_CHILD];
  const params: unknown[] = [f.companyId];
  if (f.status) {
    where.push('v.status = ?');
    params.push(f.status);
  }
  const clause = where.join(' and ');
  const rows = await em.execute<VersionDbRow[]>(
    `select ${cols('v')} from quote_versions v where ${clause} order by v.created_at desc, v.id desc limit ? offset ?`,
    [...params, f.limit, f.offset],
  );
  const [count] = await em.execute<{ total: number }[]>(`select count(*)::int as total from quote_versions v where ${clause}`, params);
  return { rows, total: count.total };
}

/** Statuses a tip outside the company's hands can have: never `draft` (private), never `countered` (it has a child). */
const QUEUE_STATUSES = ['submitted', 'under_review', 'accepted', 'rejected', 'expired'];

/**
 * The administrators' queue: chains whose tip is not a draft, grouped by company name A to Z (case
 * folded; the company id keeps two companies of one name apart), then latest activity (the tip's
 * updated_at) first. The status list lets the planner start from the status index.
 */
export async function queueTips(
  em: EntityManager,
  f: { companyId?: string; status?: QuoteStatus; limit: number; offset: number },
): Promise<TipPage<VersionDbRow & { company_name: string }>> {
  const where = [`v.status in (${QUEUE_STATUSES.map((s) => `'${s}'`).join(', ')})`, NO_CHILD];
  const params: unknown[] = [];
  if (f.status) {
    where.push('v.status = ?');
    params.push(f.status);
  }
  if (f.companyId) {
    where.push('v.company_id = ?');
    params.push(f.companyId);
  }
  const clause = where.join(' and ');
  const rows = await em.execute<(VersionDbRow & { company_name: string })[]>(
    `select ${cols('v')}, c.name as company_name
       from quote_versions v join companies c on c.id = v.company_id
      where ${clause}
      order by lower(c.name) asc, c.name asc, c.id asc, v.updated_at desc, v.id desc
      limit ? offset ?`,
    [...params, f.limit, f.offset],
  );
  const [count] = await em.execute<{ total: number }[]>(`select count(*)::int as total from quote_versions v where ${clause}`, params);
  return { rows, total: count.total };
}
