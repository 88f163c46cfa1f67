import type { Sql } from '../db/sql';
import type { StaffAccess } from '../http/guards';
import { findStaffAccess } from './repository';

/** Fresh role and areas, for the staff guard (src/http/guards.ts): one indexed read per staff request. */
export function staffAccessOf(db: Sql) {
  return async (userId: string): Promise<StaffAccess | null> => (await findStaffAccess(db, userId)) ?? null;
}
