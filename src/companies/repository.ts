import type { EntityManager } from '@mikro-orm/postgresql';
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

/** One company by id; any id that is not a UUID is simply not found. `lock` takes the row for update. */
export async function findCompany(em: EntityManager, id: string, opts: { lock?: boolean } = {}): Promise<CompanyDbRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await em.execute<CompanyDbRow[]>(`select ${COLUMNS} from companies where id = ?${opts.lock ? ' for update' : ''}`, [id]);
  return row ?? null;
}

/** The caller's company and role (a user belongs to at most one), or null. */
export async function findCompanyOfUser(em: EntityManager, userId: string): Promise<{ row: CompanyDbRow; role: CompanyRole } | null> {
  const [row] = await em.execute<(CompanyDbRow & { company_role: CompanyRole })[]>(
    `select ${COLUMNS.split(', ')
      .map((c) => `c.${c}`)
      .join(', ')}, cu.role as company_role
       from company_users cu join companies c on c.id = cu.company_id
      where cu.user_id = ?`,
    [userId],
  );
  return row ? { row, role: row.company_role } : null;
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

/** The unique user index refuses a second membership (company_users_user_id_unique). */
export async function insertMembership(em: EntityManager, companyId: string, userId: string, role: CompanyRole, now: Date): Promise<void> {
  await em.execute(`insert into company_users (id, company_id, user_id, role, created_at) values (gen_random_uuid(), ?, ?, ?, ?)`, [
    companyId,
    userId,
    role,
    now,
  ]);
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
