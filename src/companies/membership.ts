import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import type { CompanyRole, CompanyStatus } from '../entities';

export interface Membership {
  companyId: string;
  companyRole: CompanyRole;
  companyStatus: CompanyStatus;
}

interface MembershipRow {
  company_id: string;
  role: CompanyRole;
  status: CompanyStatus;
}

const SQL = `select cu.company_id, cu.role, c.status
               from company_users cu
               join companies c on c.id = cu.company_id
              where cu.user_id = $1`;

/**
 * The caller's company, their role in it and the company's status, in one indexed query (the route
 * guard runs it on every company request). A user belongs to at most one company (unique user_id).
 * With a pool it is a named prepared statement; with an EntityManager it runs in that transaction.
 */
export async function findMembership(db: Pool | PoolClient | EntityManager, userId: string): Promise<Membership | null> {
  const rows =
    'execute' in db
      ? await db.execute<MembershipRow[]>(SQL.replace('$1', '?'), [userId])
      : (await db.query<MembershipRow>({ name: 'company-membership', text: SQL, values: [userId] })).rows;
  const row = rows[0];
  return row ? { companyId: row.company_id, companyRole: row.role, companyStatus: row.status } : null;
}

/** The guard's `membership(userId)` dependency (`{ companyId, role, status }`), over a pool. */
export function membershipFromPool(pool: Pool) {
  return async (userId: string): Promise<{ companyId: string; role: CompanyRole; status: CompanyStatus } | null> => {
    const found = await findMembership(pool, userId);
    return found ? { companyId: found.companyId, role: found.companyRole, status: found.companyStatus } : null;
  };
}
