import { randomUUID } from 'node:crypto';
import { membershipOf } from '../../src/companies/membership';
import { findMembership } from '../../src/companies/repository';
import { insertCompany as insertCompanyRow, insertUser as insertUserRow, joinCompany } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(4);
});
afterAll(() => db.drop());

const insertUser = (name: string) => insertUserRow(db, name, 'b2b_admin');
const insertCompany = (status: string, crNumber?: string) => insertCompanyRow(db, status, crNumber);
const join = (companyId: string, userId: string, role: string) => joinCompany(db, companyId, userId, role);

describe('findMembership', () => {
  it.each([
    ['admin', 'approved'],
    ['member', 'pending'],
    ['admin', 'suspended'],
    ['member', 'rejected'],
  ])('finds a %s of a %s company, through the pool and through a transaction', async (role, status) => {
    const companyId = await insertCompany(status);
    const userId = await insertUser(`${role} of ${status}`);
    await join(companyId, userId, role);
    const expected = { companyId, companyRole: role, companyStatus: status };
    expect(await findMembership(db.sql, userId)).toEqual(expected);
    expect(await db.sql.transaction((tx) => findMembership(tx, userId))).toEqual(expected);
    expect(await membershipOf(db.sql)(userId)).toEqual({ companyId, role, status });
  });

  it('answers null for a user without a company, and for an unknown user', async () => {
    const invited = await insertUser('Invited, not registered');
    expect(await findMembership(db.sql, invited)).toBeNull();
    expect(await findMembership(db.sql, randomUUID())).toBeNull();
    expect(await membershipOf(db.sql)(invited)).toBeNull();
  });

  it('sees a status change at once (nothing is cached)', async () => {
    const companyId = await insertCompany('approved');
    const userId = await insertUser('Watcher');
    await join(companyId, userId, 'member');
    await db.query(`update companies set status = 'suspended' where id = $1`, [companyId]);
    expect(await findMembership(db.sql, userId)).toMatchObject({ companyStatus: 'suspended' });
  });
});

describe('company tables', () => {
  it('keep a user in at most one company', async () => {
    const userId = await insertUser('Two hats');
    await join(await insertCompany('approved'), userId, 'admin');
    await expect(join(await insertCompany('approved'), userId, 'member')).rejects.toThrow(/company_users_user_id_unique/);
  });

  it('refuse unknown roles, statuses and payment modes, and duplicate CR numbers', async () => {
    const companyId = await insertCompany('approved');
    await expect(join(companyId, await insertUser('Owner'), 'owner')).rejects.toThrow(/company_users_role_check/);
    await expect(insertCompany('archived')).rejects.toThrow(/companies_status_check/);
    await expect(db.query(`update companies set payment_mode = 'postpaid' where id = $1`, [companyId])).rejects.toThrow(
      /companies_payment_mode_check/,
    );
    await insertCompany('pending', 'AB-123');
    await expect(insertCompany('pending', 'AB-123')).rejects.toThrow(/companies_cr_number_unique/);
  });

  it('default a new company to pending with no payment mode, and drop memberships with their user', async () => {
    const id = randomUUID();
    await db.query(
      `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash,
                              contact_phone_encrypted, contact_phone_hash, created_at, updated_at)
       values ($1, 'CR-FREE-1', 'Globex', 'Omar', 'v1.a.b.c', repeat('c', 64), 'v1.d.e.f', repeat('d', 64), now(), now())`,
      [id],
    );
    expect(await db.query('select status, payment_mode, approved_by from companies where id = $1', [id])).toEqual([
      { status: 'pending', payment_mode: null, approved_by: null },
    ]);
    const userId = await insertUser('Leaver');
    await join(id, userId, 'admin');
    await db.query('delete from users where id = $1', [userId]);
    expect(await findMembership(db.sql, userId)).toBeNull();
    expect(await db.query('select count(*)::int as n from company_users where company_id = $1', [id])).toEqual([{ n: 0 }]);
  });
});
