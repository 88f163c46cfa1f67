import type { EntityManager } from '@mikro-orm/postgresql';
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
export async function insertCompany(em: EntityManager, c: NewCompany): Promise<CompanyDbRow> {
  const [row] = await em.execute<CompanyDbRow[]>(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash,
                            contact_phone_encrypted, contact_phone_hash, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) returning ${COLUMNS}`,
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
      c.now,
    ],
  );
  return row;
}

const INSERT_MEMBERSHIP = query(
  'companies.insert-membership',
  'insert into company_users (id, company_id, user_id, role, created_at) values (gen_random_uuid(), $1, $2, $3, $4)',
);

/** The unique user index refuses a second membership (company_users_user_id_unique). */
export async function insertMembership(sql: Sql, companyId: string, userId: string, role: CompanyRole, now: Date): Promise<void> {
  await sql.exec(INSERT_MEMBERSHIP, [companyId, userId, role, now]);
}

export async function updatePaymentMode(em: EntityManager, id: string, mode: PaymentMode, now: Date): Promise<CompanyDbRow> {
  const [row] = await em.execute<CompanyDbRow[]>(
    `update companies set payment_mode = ?, updated_at = ? where id = ? returning ${COLUMNS}`,
    [mode, now, id],
  );
  return row;
}

export interface CompanyListFilter {
  status?: CompanyStatus;
  /** Already trimmed and non-empty. */
  search?: string;
  limit: number;
  offset: number;
}

/** Newest first (created_at, then id), one page and the total matching the filters. */
export async function listCompanies(em: EntityManager, filter: CompanyListFilter): Promise<{ rows: CompanyDbRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.search) {
    const pattern = likeSubstring(filter.search);
    // Backslash is ILIKE's default escape character.
    where.push('(name ilike ? or cr_number ilike ?)');
    params.push(pattern, pattern);
  }
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const rows = await em.execute<CompanyDbRow[]>(
    `select ${COLUMNS} from companies ${clause} order by created_at desc, id desc limit ? offset ?`,
    [...params, filter.limit, filter.offset],
  );
  const [count] = await em.execute<{ total: string | number }[]>(`select count(*) as total from companies ${clause}`, params);
  return { rows, total: Number(count.total) };
}
