import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import type { IdentityType, LinkStatus, RosterStatus } from '../entities';
import { ACTIVE_LINK_SQL, ACTIVE_LINK_STATUSES } from '../entities';

/**
 * The SQL of the company roster (roster_entries with the staged users behind them). The list runs
 * as named prepared statements on the pool; staging runs in the caller's transaction on one pg
 * client (arrays bound as parameters: one statement per table, whatever the batch size).
 */

// --- Rows as read --------------------------------------------------------------------------------

export interface RosterRow {
  id: string;
  company_id: string;
  user_id: string;
  nationality: string | null;
  status: RosterStatus;
  package_id: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  name: string;
  phone_encrypted: string | null;
  email_encrypted: string | null;
  identity_type: IdentityType;
  /** The latest link's status with lazy expiry applied (an active link past its expiry reads `expired`). */
  link_status: LinkStatus | null;
  link_expires_at: string | null;
  link_created_at: string | null;
  activated: boolean;
}

export interface ExportRow extends RosterRow {
  package_name_en: string | null;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `now` is a parameter (the app's clock), so lazy expiry and tests agree on the time. */
const effectiveLinkStatus = (now: string) =>
  `case when r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at <= ${now} then 'expired' else r.link_status end`;

/** Everything the list and the export show of an entry; `la` is the person's latest activation. */
const columns = (now: string) => `
  r.id, r.company_id, r.user_id, r.nationality, r.status, r.package_id, r.created_by,
  ${iso('r.created_at')} as created_at, ${iso('r.updated_at')} as updated_at,
  u.name, u.phone_encrypted, u.email_encrypted, u.identity_type,
  ${effectiveLinkStatus(now)} as link_status, ${iso('r.link_expires_at')} as link_expires_at, ${iso('r.link_created_at')} as link_created_at,
  coalesce(la.status = 'activated', false) as activated`;

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

export function createRosterReads(pool: Pool) {
  /**
   * One page, newest first. The page's ids come from the index alone (offset and limit on an
   * index-only scan), then only those rows are joined to users and to the latest activation.
   */
  async function page(f: ListFilter): Promise<RosterRow[]> {
    const where = whereOf(f);
    const n = where.values.length;
    const text = `with page as (
        select r.id from roster_entries r where ${where.clause}
         order by r.created_at desc, r.id desc offset $${n + 1} limit $${n + 2})
      select ${columns(`$${n + 3}::timestamptz`)}
        from page p join roster_entries r on r.id = p.id join users u on u.id = r.user_id
        ${LATEST_ACTIVATION}
       order by r.created_at desc, r.id desc`;
    const { rows } = await pool.query<RosterRow>({
      name: `roster-page-${where.key || 'all'}`,
      text,
      values: [...where.values, f.offset, f.limit, f.now],
    });
    return rows;
  }

  /**
   * The number of entries the filter matches. Without a link-status filter or a search it is read
   * from roster_counts (kept by triggers), not counted: counting is linear in the company's roster.
   */
  async function total(f: ListFilter): Promise<number> {
    if (!f.linkStatus && !f.searchHash) {
      const { rows } = await pool.query<{ total: number }>({
        name: f.status ? 'roster-total-counted-s' : 'roster-total-counted',
        text: `select coalesce(sum(c.entries), 0)::int as total from roster_counts c
                where c.company_id = $1${f.status ? ' and c.status = $2' : ''}`,
        values: f.status ? [f.companyId, f.status] : [f.companyId],
      });
      return rows[0].total;
    }
    const where = whereOf(f);
    const { rows } = await pool.query<{ total: number }>({
      name: `roster-total-${where.key || 'all'}`,
      text: `select count(*)::int as total from roster_entries r where ${where.clause}`,
      values: where.values,
    });
    return rows[0].total;
  }

  return { page, total };
}

/** The whole roster of a company, newest first, with the English name of the assigned package (the CSV export). */
export async function exportRows(em: EntityManager, companyId: string, now: Date): Promise<ExportRow[]> {
  return em.execute<ExportRow[]>(
    `select ${columns('?::timestamptz')}, pk.name_en as package_name_en
       from roster_entries r join users u on u.id = r.user_id
       left join packages pk on pk.id = r.package_id
       ${LATEST_ACTIVATION}
      where r.company_id = ?
      order by r.created_at desc, r.id desc`,
    [now.toISOString(), companyId],
  );
}

/** One entry as the list shows it (the answer of PATCH /b2b/roster/:rosterId), read in the caller's transaction. */
export async function readRosterEntry(em: EntityManager, rosterId: string, now: Date): Promise<RosterRow | undefined> {
  const [row] = await em.execute<RosterRow[]>(
    `select ${columns('?::timestamptz')}
       from roster_entries r join users u on u.id = r.user_id
       ${LATEST_ACTIVATION}
      where r.id = ?`,
    [now.toISOString(), rosterId],
  );
  return row;
}

// --- Staging -------------------------------------------------------------------------------------

export interface ExistingContact {
  hash: string;
  onRoster: boolean;
}

/** Accounts already holding any of these contact hashes (phone or e-mail), and whether each is on this company's roster. */
export async function findContacts(db: PoolClient, companyId: string, hashes: string[]): Promise<ExistingContact[]> {
  if (hashes.length === 0) return [];
  const { rows } = await db.query<{ phone_hash: string | null; email_hash: string | null; on_roster: boolean }>(
    `select u.phone_hash, u.email_hash,
            exists (select 1 from roster_entries r where r.company_id = $1 and r.user_id = u.id) as on_roster
       from users u
      where u.phone_hash = any($2::text[]) or u.email_hash = any($2::text[])`,
    [companyId, hashes],
  );
  const found: ExistingContact[] = [];
  for (const row of rows) {
    for (const hash of [row.phone_hash, row.email_hash]) if (hash !== null) found.push({ hash, onRoster: row.on_roster });
  }
  return found;
}

export interface NewUser {
  id: string;
  name: string;
  phoneEncrypted: string | null;
  phoneHash: string | null;
  emailEncrypted: string | null;
  emailHash: string | null;
  identityType: IdentityType;
}

/**
 * Inserts the staged people's accounts in one statement. A row whose phone or e-mail hash is taken
 * meanwhile (a concurrent stage, a sign-up) is skipped by the unique indexes, not failed: the ids
 * returned are the rows actually written.
 */
export async function insertUsers(db: PoolClient, users: NewUser[], at: Date): Promise<Set<string>> {
  const col = <K extends keyof NewUser>(key: K) => users.map((u) => u[key]);
  const { rows } = await db.query<{ id: string }>(
    `insert into users (id, name, phone_encrypted, phone_hash, email_encrypted, email_hash, identity_type,
                        app_role, is_active, created_at, updated_at)
     select t.id, t.name, t.pe, t.ph, t.ee, t.eh, t.it, 'end_user', true, $8, $8
       from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as t(id, name, pe, ph, ee, eh, it)
     on conflict do nothing
     returning id`,
    [col('id'), col('name'), col('phoneEncrypted'), col('phoneHash'), col('emailEncrypted'), col('emailHash'), col('identityType'), at],
  );
  return new Set(rows.map((r) => r.id));
}

export interface NewEntry {
  userId: string;
  nationality: string | null;
}

/**
 * Inserts the roster rows in one statement, `staged`. The n-th row of the batch is stamped `at` + n µs,
 * so newest first is a stable order (later rows of a file first).
 */
export async function insertEntries(db: PoolClient, companyId: string, createdBy: string, entries: NewEntry[], at: Date): Promise<number> {
  const res = await db.query(
    `insert into roster_entries (company_id, user_id, nationality, status, created_by, created_at, updated_at)
     select $1, t.user_id, t.nationality, 'staged', $2, $3::timestamptz + t.n * interval '1 microsecond',
            $3::timestamptz + t.n * interval '1 microsecond'
       from unnest($4::uuid[], $5::text[]) with ordinality as t(user_id, nationality, n)`,
    [companyId, createdBy, at, entries.map((e) => e.userId), entries.map((e) => e.nationality)],
  );
  return res.rowCount ?? 0;
}
