// Company fixtures written with SQL, for tests that need a company, a member or a bare user row
// before the companies issue's routes exist. Contact fields hold placeholders: nothing decrypts them.
import { randomUUID } from 'node:crypto';
import type { AppRole, CompanyRole, CompanyStatus } from '../../src/entities';

/** Loose on purpose: tests also write values the database must refuse. */
type Loose<T extends string> = T | (string & {});

interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A user row with no credentials (it cannot sign in): an actor or a member to point at. */
export async function insertUser(db: Db, name: string, role: AppRole = 'end_user'): Promise<string> {
  const id = randomUUID();
  await db.query(`insert into users (id, name, app_role, created_at, updated_at) values ($1, $2, $3, now(), now())`, [id, name, role]);
  return id;
}

let crSeq = 1_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
export async function insertCompany(db: Db, status: Loose<CompanyStatus>, crNumber = String(crSeq++)): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash,
                            contact_phone_encrypted, contact_phone_hash, status, created_at, updated_at)
     values ($1, $2, 'Acme', 'Sara', 'v1.a.b.c', repeat('a', 64), 'v1.d.e.f', repeat('b', 64), $3, now(), now())`,
    [id, crNumber, status],
  );
  return id;
}

export async function joinCompany(db: Db, companyId: string, userId: string, role: Loose<CompanyRole>): Promise<void> {
  await db.query(`insert into company_users (id, company_id, user_id, role, created_at) values ($1, $2, $3, $4, now())`, [
    randomUUID(),
    companyId,
    userId,
    role,
  ]);
}
