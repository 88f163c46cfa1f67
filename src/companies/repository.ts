import { query, type Sql } from '../db/sql';
import { likeSubstring } from '../db/like';
import type { CompanyRole, CompanyStatus, PaymentMode } from '../entities';
import { isUuid } from '../http/fields';
import type { PersonalDataCipher } from '../lib/crypto';

/**
 * The companies table as the company routes read and write it: one row type, the SQL, and the
 * view every route answers (contact e-mail and phone decrypted).
 */

export interface CompanyView {
  id: string;
  crNumber: string;
  name: string;
  contactName: string;
  contactEmail: string;
  contactPhone: string;
  status: CompanyStatus;
  paymentMode: PaymentMode | null;
  approvedBy: string | null;
  approvedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface CompanyDbRow {
  id: string;
  cr_number: string;
  name: string;
  contact_name: string;
  contact_email_encrypted: string;
  contact_phone_encrypted: string;
  status: CompanyStatus;
  payment_mode: PaymentMode | null;
  approved_by: string | null;
  approved_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS =
  'id, cr_number, name, contact_name, contact_email_encrypted, contact_phone_encrypted, status, payment_mode, approved_by, approved_at, created_at, updated_at';
const iso = (value: Date | string) => new Date(value).toISOString();

export function companyView(row: CompanyDbRow, cipher: PersonalDataCipher): CompanyView {
  return {
    id: row.id,
    crNumber: row.cr_number,
    name: row.name,
    contactName: row.contact_name,
    contactEmail: cipher.decrypt(row.contact_email_encrypted),
    contactPhone: cipher.decrypt(row.contact_phone_encrypted),
    status: row.status,
    paymentMode: row.payment_mode,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at === null ? null : iso(row.approved_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const FIND = query('companies.find', `select ${COLUMNS} from companies where id = $1`);
const LOCK = query('companies.lock', `select ${COLUMNS} from companies where id = $1 for update`);

/** One company by id; any id that is not a UUID is simply not found. `lock` takes the row for update. */
export async function findCompany(sql: Sql, id: string, opts: { lock?: boolean } = {}): Promise<CompanyDbRow | null> {
  if (!isUuid(id)) return null;
  return (await sql.one<CompanyDbRow>(opts.lock ? LOCK : FIND, [id])) ?? null;
}

/** The caller's company and role (a user belongs to at most one), or null. */
export async function findCompanyOfUser(sql: Sql, userId: string): Promise<{ row: CompanyDbRow; role: CompanyRole } | null> {
  const row = await sql.one<CompanyDbRow & { company_role: CompanyRole }>(
    query(
      'companies.of-user',
      `select ${COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(', ')}, cu.role as company_role
         from company_users cu join companies c on c.id = cu.company_id
        where cu.user_id = $1`,
    ),
    [userId],
  );
  return row ? { row, role: row.company_role } : null;
}

/**
 * Whether the company has an active contract, which locks its payment mode (CONTRACT_ALREADY_EXISTS).
 * Read inside the caller's transaction where the company row is locked: a contract confirmation that
 * takes the same company row lock cannot slip between this read and the mode write.
 */
export async function hasActiveContract(sql: Sql, companyId: string): Promise<boolean> {
  const row = await sql.one<{ found: boolean }>(
    query('companies.has-active-contract', `select exists (select 1 from contracts where company_id = $1 and status = 'active') as found`),
    [companyId],
  );
  return row?.found === true;
}

/**
 * The contract gates of readiness: contractConfirmed, an active contract exists; paymentSatisfied, the
 * payments recorded on it sum to at least its total (the same rule in both modes). One query, in halalas.
 */
export async function contractGates(sql: Sql, companyId: string): Promise<{ contractConfirmed: boolean; paymentSatisfied: boolean }> {
  const row = await sql.one<{ paid_enough: boolean }>(
    query(
      'companies.contract-gates',
      `select coalesce((select sum(p.amount_halalas) from contract_payments p where p.contract_id = c.id), 0) >= c.total_halalas as paid_enough
         from contracts c
        where c.company_id = $1 and c.status = 'active'`,
    ),
    [companyId],
  );
  return { contractConfirmed: row !== undefined, paymentSatisfied: row?.paid_enough === true };
}

/** rosterStaged: at least one roster row exists. */
export async function hasRoster(sql: Sql, companyId: string): Promise<boolean> {
  const row = await sql.one<{ staged: boolean }>(
    query('companies.has-roster', 'select exists (select 1 from roster_entries where company_id = $1) as staged'),
    [companyId],
  );
  return row?.staged === true;
}

export interface NewCompany {
  id: string;
  crNumber: string;
  name: string;
  contactName: string;
  contactEmailEncrypted: string;
  contactEmailHash: string;
  contactPhoneEncrypted: string;
  contactPhoneHash: string;
  now: Date;
}

/** A new `pending` company; the unique CR number index refuses a second one (companies_cr_number_unique). */
export async function insertCompany(sql: Sql, c: NewCompany): Promise<CompanyDbRow> {
  const row = await sql.one<CompanyDbRow>(
    query(
      'companies.insert',
      `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash,
                              contact_phone_encrypted, contact_phone_hash, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9) returning ${COLUMNS}`,
    ),
    [
      c.id,
      c.crNumber,
      c.name,
      c.contactName,
      c.contactEmailEncrypted,
      c.contactEmailHash,
      c.contactPhoneEncrypted,
      c.contactPhoneHash,
      c.now,
    ],
  );
  return row!;
}

/** The unique user index refuses a second membership (company_users_user_id_unique). */
export async function insertMembership(sql: Sql, companyId: string, userId: string, role: CompanyRole, now: Date): Promise<void> {
  await sql.exec(
    query(
      'companies.insert-membership',
      'insert into company_users (id, company_id, user_id, role, created_at) values (gen_random_uuid(), $1, $2, $3, $4)',
    ),
    [companyId, userId, role, now],
  );
}

export async function updatePaymentMode(sql: Sql, id: string, mode: PaymentMode, now: Date): Promise<CompanyDbRow> {
  const row = await sql.one<CompanyDbRow>(
    query('companies.update-payment-mode', `update companies set payment_mode = $1, updated_at = $2 where id = $3 returning ${COLUMNS}`),
    [mode, now, id],
  );
  return row!;
}

export interface Membership {
  companyId: string;
  companyRole: CompanyRole;
  companyStatus: CompanyStatus;
}

/**
 * The caller's company, their role in it and the company's status, in one indexed query (the route
 * guard runs it on every company request). A user belongs to at most one company (unique user_id).
 */
export async function findMembership(sql: Sql, userId: string): Promise<Membership | null> {
  const row = await sql.one<Membership>(
    query(
      'companies.membership',
      `select cu.company_id as "companyId", cu.role as "companyRole", c.status as "companyStatus"
         from company_users cu
         join companies c on c.id = cu.company_id
        where cu.user_id = $1`,
    ),
    [userId],
  );
  return row ?? null;
}

export interface CompanyListFilter {
  status?: CompanyStatus;
  /** Already trimmed and non-empty. */
  search?: string;
  limit: number;
  offset: number;
}

/** Newest first (created_at, then id), one page and the total matching the filters. */
export async function listCompanies(sql: Sql, filter: CompanyListFilter): Promise<{ rows: CompanyDbRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    params.push(filter.status);
    where.push(`status = $${params.length}`);
  }
  if (filter.search) {
    // Backslash is ILIKE's default escape character.
    params.push(likeSubstring(filter.search));
    where.push(`(name ilike $${params.length} or cr_number ilike $${params.length})`);
  }
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const n = params.length;
  const rows = await sql.rows<CompanyDbRow>(
    `select ${COLUMNS} from companies ${clause} order by created_at desc, id desc limit $${n + 1} offset $${n + 2}`,
    [...params, filter.limit, filter.offset],
  );
  const count = await sql.one<{ total: string }>(`select count(*) as total from companies ${clause}`, params);
  return { rows, total: Number(count!.total) };
}

// --- The onboarding run's writes and reads (activities/companies.ts) --------------------------------

export interface StatusWrite {
  companyId: string;
  from: CompanyStatus;
  to: CompanyStatus;
  /** approve stamps approvedBy and approvedAt (reactivate leaves them). */
  approve: boolean;
  actorUserId: string;
  now: Date;
}

/** The status move, guarded by `status = from` so a write never skips a state; false when the guard matched nothing. */
export async function writeCompanyStatus(sql: Sql, w: StatusWrite): Promise<boolean> {
  const changed = await sql.exec(
    query(
      'companies.write-status',
      `update companies set status = $1, updated_at = $2,
              approved_by = case when $3 then $4 else approved_by end,
              approved_at = case when $3 then $2 else approved_at end
        where id = $5 and status = $6`,
    ),
    [w.to, w.now, w.approve, w.actorUserId, w.companyId, w.from],
  );
  return changed > 0;
}

/**
 * The company's status and how many status changes it has had (its `company.status_changed` audit rows,
 * written in each change's transaction), read in one statement: the state a status action applies to
 * (src/companies/runs-temporal.ts). Statuses come back (suspend, reactivate, suspend); the count never does.
 */
export async function statusAndChanges(sql: Sql, companyId: string): Promise<{ status: CompanyStatus; changes: number } | null> {
  if (!isUuid(companyId)) return null;
  const row = await sql.one<{ status: CompanyStatus; changes: number }>(
    query(
      'companies.status-and-changes',
      `select c.status,
              (select count(*)::int from audit_events a
                where a.entity_type = 'company' and a.entity_id = c.id::text and a.action = 'company.status_changed') as changes
         from companies c where c.id = $1`,
    ),
    [companyId],
  );
  return row ?? null;
}

export async function companyStatus(sql: Sql, companyId: string): Promise<CompanyStatus | undefined> {
  const row = await sql.one<{ status: CompanyStatus }>(query('companies.status', 'select status from companies where id = $1'), [
    companyId,
  ]);
  return row?.status;
}

/** Every member's user id, in id order. */
export async function memberIds(sql: Sql, companyId: string): Promise<string[]> {
  const rows = await sql.rows<{ userId: string }>(
    query('companies.member-ids', 'select user_id as "userId" from company_users where company_id = $1 order by user_id'),
    [companyId],
  );
  return rows.map((r) => r.userId);
}

/** The company's active portal admins (not blocklisted), in id order, and which contacts each has. */
export async function noticeRecipients(sql: Sql, companyId: string): Promise<{ userId: string; hasEmail: boolean; hasPhone: boolean }[]> {
  return sql.rows(
    query(
      'companies.notice-recipients',
      `select u.id as "userId", u.email_encrypted is not null as "hasEmail", u.phone_encrypted is not null as "hasPhone"
         from company_users cu join users u on u.id = cu.user_id
        where cu.company_id = $1 and cu.role = 'admin' and u.is_active and u.blocklisted_at is null
        order by u.id`,
    ),
    [companyId],
  );
}

/** The company's name and a member's encrypted contacts; undefined when the user is not (or no longer) a member. */
export async function noticeContact(
  sql: Sql,
  companyId: string,
  userId: string,
): Promise<{ name: string; emailEncrypted: string | null; phoneEncrypted: string | null } | undefined> {
  return sql.one(
    query(
      'companies.notice-contact',
      `select c.name, u.email_encrypted as "emailEncrypted", u.phone_encrypted as "phoneEncrypted"
         from companies c join company_users cu on cu.company_id = c.id join users u on u.id = cu.user_id
        where c.id = $1 and u.id = $2`,
    ),
    [companyId, userId],
  );
}
