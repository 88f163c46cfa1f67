import { query, type Sql } from '../db/sql';
import type { IdentityType } from '../entities';
import { LIVE_LINK, REDEEMED_LINK } from '../links';

/**
 * The SQL of the company roster's writes: staging people (accounts and roster rows, one statement
 * per table whatever the batch size), and an entry's assignment and removal under the seat guards.
 * Everything runs in the caller's transaction. The list and the export are in reads.ts.
 */

// --- Staging -------------------------------------------------------------------------------------

export interface ExistingContact {
  hash: string;
  onRoster: boolean;
}

const FIND_CONTACTS = query(
  'roster.find-contacts',
  `select u.phone_hash as "phoneHash", u.email_hash as "emailHash",
          exists (select 1 from roster_entries r where r.company_id = $1 and r.user_id = u.id) as "onRoster"
     from users u
    where u.phone_hash = any($2::text[]) or u.email_hash = any($2::text[])`,
);

/** Accounts already holding any of these contact hashes (phone or e-mail), and whether each is on this company's roster. */
export async function findContacts(sql: Sql, companyId: string, hashes: string[]): Promise<ExistingContact[]> {
  if (hashes.length === 0) return [];
  const rows = await sql.rows<{ phoneHash: string | null; emailHash: string | null; onRoster: boolean }>(FIND_CONTACTS, [
    companyId,
    hashes,
  ]);
  const found: ExistingContact[] = [];
  for (const row of rows) {
    for (const hash of [row.phoneHash, row.emailHash]) if (hash !== null) found.push({ hash, onRoster: row.onRoster });
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

const INSERT_USERS = query(
  'roster.insert-users',
  `insert into users (id, name, phone_encrypted, phone_hash, email_encrypted, email_hash, identity_type,
                      app_role, is_active, created_at, updated_at)
   select t.id, t.name, t.pe, t.ph, t.ee, t.eh, t.it, 'end_user', true, $8, $8
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as t(id, name, pe, ph, ee, eh, it)
   on conflict do nothing
   returning id`,
);

/**
 * Inserts the staged people's accounts in one statement. A row whose phone or e-mail hash is taken
 * meanwhile (a concurrent stage, a sign-up) is skipped by the unique indexes, not failed: the ids
 * returned are the rows actually written.
 */
export async function insertUsers(sql: Sql, users: NewUser[], at: Date): Promise<Set<string>> {
  const col = <K extends keyof NewUser>(key: K) => users.map((u) => u[key]);
  const rows = await sql.rows<{ id: string }>(INSERT_USERS, [
    col('id'),
    col('name'),
    col('phoneEncrypted'),
    col('phoneHash'),
    col('emailEncrypted'),
    col('emailHash'),
    col('identityType'),
    at,
  ]);
  return new Set(rows.map((r) => r.id));
}

export interface NewEntry {
  userId: string;
  nationality: string | null;
}

const INSERT_ENTRIES = query(
  'roster.insert-entries',
  `insert into roster_entries (company_id, user_id, nationality, status, created_by, created_at, updated_at)
   select $1, t.user_id, t.nationality, 'staged', $2, $3::timestamptz + t.n * interval '1 microsecond',
          $3::timestamptz + t.n * interval '1 microsecond'
     from unnest($4::uuid[], $5::text[]) with ordinality as t(user_id, nationality, n)`,
);

/**
 * Inserts the roster rows in one statement, `staged`. The n-th row of the batch is stamped `at` + n µs,
 * so newest first is a stable order (later rows of a file first).
 */
export async function insertEntries(sql: Sql, companyId: string, createdBy: string, entries: NewEntry[], at: Date): Promise<number> {
  return sql.exec(INSERT_ENTRIES, [companyId, createdBy, at, entries.map((e) => e.userId), entries.map((e) => e.nationality)]);
}

// --- Assignment and removal ----------------------------------------------------------------------

export interface GuardedEntry {
  id: string;
  userId: string;
  /** Ever redeemed a link: the seat is consumed for good. */
  redeemed: boolean;
  /** Holds a live link. */
  open: boolean;
}

const GUARDED_ENTRY = query(
  'roster.guarded-entry',
  `select r.id, r.user_id as "userId",
          exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
          exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${LIVE_LINK('l', '$1::timestamptz')}) as open
     from roster_entries r where r.company_id = $2 and r.id = $3 for update of r`,
);

/** One entry of the company, locked, with the two seat guards' facts; undefined when it is not the company's. */
export async function guardedEntry(sql: Sql, companyId: string, rosterId: string, now: Date): Promise<GuardedEntry | undefined> {
  return sql.one<GuardedEntry>(GUARDED_ENTRY, [now, companyId, rosterId]);
}

const WRITE_ASSIGNMENT = query(
  'roster.write-assignment',
  'update roster_entries set package_id = $2, contract_item_id = $3, unit_price_halalas = null, updated_at = $4 where id = $1',
);

/** Writes an assignment: the price snapshot is always cleared. */
export async function writeAssignment(
  sql: Sql,
  rosterId: string,
  a: { packageId: string | null; contractItemId: string | null },
  now: Date,
): Promise<void> {
  await sql.exec(WRITE_ASSIGNMENT, [rosterId, a.packageId, a.contractItemId, now]);
}

const IS_BARE_STAGED_USER = query(
  'roster.is-bare-staged-user',
  `select (u.app_role = 'end_user'
           and not exists (select 1 from activations a where a.user_id = u.id)
           and not exists (select 1 from orders o where o.user_id = u.id)
           and not exists (select 1 from roster_entries r where r.user_id = u.id and r.company_id <> $1)
           and not exists (select 1 from company_users m where m.user_id = u.id)) as bare
     from users u where u.id = $2`,
);

/** Whether the account is still a bare staged end user of this company only, with no activation ever. */
export async function isBareStagedUser(sql: Sql, companyId: string, userId: string): Promise<boolean> {
  return (await sql.one<{ bare: boolean }>(IS_BARE_STAGED_USER, [companyId, userId]))?.bare === true;
}

const DELETE_SESSIONS = query('roster.delete-sessions', 'delete from sessions where user_id = $1');
const DELETE_LINKS = query('roster.delete-links', 'delete from invitation_links where roster_entry_id = $1 or user_id = $2');
const DELETE_ENTRY = query('roster.delete-entry', 'delete from roster_entries where id = $1');
const DELETE_USER = query('roster.delete-user', 'delete from users where id = $1');

/** Hard delete: sessions first, then the link history, the roster row and the account. */
export async function deleteEntry(sql: Sql, rosterId: string, userId: string): Promise<void> {
  await sql.exec(DELETE_SESSIONS, [userId]);
  await sql.exec(DELETE_LINKS, [rosterId, userId]);
  await sql.exec(DELETE_ENTRY, [rosterId]);
  await sql.exec(DELETE_USER, [userId]);
}
