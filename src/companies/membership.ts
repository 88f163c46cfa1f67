import type { Sql } from '../db/sql';
import type { CompanyRole, CompanyStatus } from '../entities';
import { findMembership } from './repository';

/** The guard's `membership(userId)` dependency (`{ companyId, role, status }`): one indexed query per company request. */
export function membershipOf(sql: Sql) {
  return async (userId: string): Promise<{ companyId: string; role: CompanyRole; status: CompanyStatus } | null> => {
    const found = await findMembership(sql, userId);
    return found ? { companyId: found.companyId, role: found.companyRole, status: found.companyStatus } : null;
  };
}
