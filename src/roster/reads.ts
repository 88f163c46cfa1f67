import { query, type Sql } from '../db/sql';
import type { IdentityType, LinkStatus, RosterStatus } from '../entities';
import { ACTIVE_LINK_SQL, ACTIVE_LINK_STATUSES } from '../entities';

/**
 * The roster as the portal reads it: the list (a named statement per filter shape, on the pool), the
 * export, and one entry in the list's shape. Instants are rendered by the database (ISO 8601 UTC with
 * milliseconds), so a row is the answer's entry but for its encrypted contacts.
 */

export interface RosterRow {
  id: string;
  companyId: string;
  userId: string;
  nationality: string | null;
  status: RosterStatus;
  packageId: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  name: string;
  phoneEncrypted: string | null;
  emailEncrypted: string | null;
  identityType: IdentityType;
  /** The latest link's status with lazy expiry applied (an active link past its expiry reads `expired`). */
  linkStatus: LinkStatus | null;
  linkExpiresAt: string | null;
  linkCreatedAt: string | null;
  activated: boolean;
}

export interface ExportRow extends RosterRow {
  packageNameEn: string | null;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `now` is a parameter (the app's clock), so lazy expiry and tests agree on the time. */
const effectiveLinkStatus = (now: string) =>
  `case when r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at <= ${now} then 'expired' else r.link_status end`;

/** Everything the list and the export show of an entry; `la` is the person's latest activation. */
const columns = (now: string) => `
  r.id, r.company_id as "companyId", r.user_id as "userId", r.nationality, r.status, r.package_id as "packageId",
  r.created_by as "createdBy", ${iso('r.created_at')} as "createdAt", ${iso('r.updated_at')} as "updatedAt",
  u.name, u.phone_encrypted as "phoneEncrypted", u.email_encrypted as "emailEncrypted", u.identity_type as "identityType",
  ${effectiveLinkStatus(now)} as "linkStatus", ${iso('r.link_expires_at')} as "linkExpiresAt",
  ${iso('r.link_created_at')} as "linkCreatedAt", coalesce(la.status = 'activated', false) as activated`;

/** The person's latest activation (activations_user_history_index), as magic-link redemption reads it. */
const LATEST_ACTIVATION = `left join lateral (
    select a.status from activations a where a.user_id = r.user_id and a.deleted_at is null
     order by a.created_at desc, a.id desc limit 1) la on true`;

// --- The list ------------------------------------------------------------------------------------

export type LinkStatusFilter = LinkStatus | 'none';

export interface ListFilter {
  companyId: string;
  status?: RosterStatus;
  linkStatus?: LinkStatusFilter;
  /** Keyed hash of the trimmed search text (matched against phone and e-mail hashes). */
  searchHash?: string;
  now: Date;
  offset: number;
  limit: number;
}

/**
 * The WHERE clause of a filter, as fixed text per filter shape (so each shape is one named
 * statement) and its values. Every shape reads one company's entries through an index whose
 * leading columns are its equalities and whose order is the list's (created_at desc, id desc):
 * company (+ status) or company + link status; a search goes from the users' unique hashes to the
 * (company_id, user_id) unique index.
 */
function whereOf(f: ListFilter): { key: string; clause: string; values: unknown[] } {
  const values: unknown[] = [f.companyId];
  const clause = ['r.company_id = $1'];
  let key = '';
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (f.status) {
    clause.push(`r.status = ${param(f.status)}`);
    key += 's';
  }
  if (f.linkStatus) {
    const [sql, shape] = linkClause(f.linkStatus, param, f.now);
    clause.push(sql);
    key += shape;
  }
  if (f.searchHash) {
    const hash = param(f.searchHash);
    clause.push(`r.user_id in (select u.id from users u where u.phone_hash = ${hash} or u.email_hash = ${hash})`);
    key += 'q';
  }
  return { key, clause: clause.join(' and '), values };
}

/** The link-status condition on the copied latest link, with lazy expiry; and a key for its statement shape. */
function linkClause(status: LinkStatusFilter, param: (v: unknown) => string, now: Date): [string, string] {
  if (status === 'none') return ['r.link_status is null', 'n'];
  if (status === 'expired') {
    const at = param(now);
    return [`(r.link_status = 'expired' or (r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at <= ${at}::timestamptz))`, 'x'];
  }
  const value = param(status);
  if ((ACTIVE_LINK_STATUSES as readonly string[]).includes(status)) {
    return [`r.link_status = ${value} and r.link_expires_at > ${param(now)}::timestamptz`, 'a'];
  }
  return [`r.link_status = ${value}`, 'l'];
}

/**
 * One page, newest first. The page's ids come from the index alone (offset and limit on an
 * index-only scan), then only those rows are joined to users and to the latest activation. The
 * statement is named by its filter shape (the benchmark finds it by that name).
 */
export async function rosterPage(sql: Sql, f: ListFilter): Promise<RosterRow[]> {
  const where = whereOf(f);
  const n = where.values.length;
  const text = `with page as (
      select r.id from roster_entries r where ${where.clause}
       order by r.created_at desc, r.id desc offset $${n + 1} limit $${n + 2})
    select ${columns(`$${n + 3}::timestamptz`)}
      from page p join roster_entries r on r.id = p.id join users u on u.id = r.user_id
      ${LATEST_ACTIVATION}
     order by r.created_at desc, r.id desc`;
  return sql.rows<RosterRow>(query(`roster-page-${where.key || 'all'}`, text), [...where.values, f.offset, f.limit, f.now]);
}

const TOTAL_COUNTED = query(
  'roster-total-counted',
  'select coalesce(sum(c.entries), 0)::int as total from roster_counts c where c.company_id = $1',
);
const TOTAL_COUNTED_BY_STATUS = query(
  'roster-total-counted-s',
  'select coalesce(sum(c.entries), 0)::int as total from roster_counts c where c.company_id = $1 and c.status = $2',
);

/**
 * The number of entries the filter matches. Without a link-status filter or a search it is read
 * from roster_counts (kept by triggers), not counted: counting is linear in the company's roster.
 */
export async function rosterTotal(sql: Sql, f: ListFilter): Promise<number> {
  if (!f.linkStatus && !f.searchHash) {
    const row = f.status
      ? await sql.one<{ total: number }>(TOTAL_COUNTED_BY_STATUS, [f.companyId, f.status])
      : await sql.one<{ total: number }>(TOTAL_COUNTED, [f.companyId]);
    return row?.total ?? 0;
  }
  const where = whereOf(f);
  const row = await sql.one<{ total: number }>(
    query(`roster-total-${where.key || 'all'}`, `select count(*)::int as total from roster_entries r where ${where.clause}`),
    where.values,
  );
  return row?.total ?? 0;
}

// --- The export and one entry --------------------------------------------------------------------

const EXPORT_ROWS = query(
  'roster.export',
  `select ${columns('$1::timestamptz')}, pk.name_en as "packageNameEn"
     from roster_entries r join users u on u.id = r.user_id
     left join packages pk on pk.id = r.package_id
     ${LATEST_ACTIVATION}
    where r.company_id = $2
    order by r.created_at desc, r.id desc`,
);

/** The whole roster of a company, newest first, with the English name of the assigned package (the CSV export). */
export async function exportRows(sql: Sql, companyId: string, now: Date): Promise<ExportRow[]> {
  return sql.rows<ExportRow>(EXPORT_ROWS, [now, companyId]);
}

const READ_ENTRY = query(
  'roster.read-entry',
  `select ${columns('$1::timestamptz')}
     from roster_entries r join users u on u.id = r.user_id
     ${LATEST_ACTIVATION}
    where r.id = $2`,
);

/** One entry as the list shows it (the answer of PATCH /b2b/roster/:rosterId), read in the caller's transaction. */
export async function readRosterEntry(sql: Sql, rosterId: string, now: Date): Promise<RosterRow | undefined> {
  return sql.one<RosterRow>(READ_ENTRY, [now, rosterId]);
}
