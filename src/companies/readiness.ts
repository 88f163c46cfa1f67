import type { Sql } from '../db/sql';
import { isUuid } from '../http/fields';
import type { Readiness } from '../../workflows/contracts/company-contract';
import { contractGates, hasRoster } from './repository';

/**
 * The readiness gates of GET /b2b/readiness, read from the database (the spec's table): the company's
 * onboarding workflow recomputes them on every readiness signal, and the readiness routes can read
 * them the same way.
 */
export async function readinessOf(sql: Sql, companyId: string): Promise<Readiness> {
  // An id that is not a UUID names no company: all false (as an unknown company), never a SQL cast error.
  if (!isUuid(companyId)) return { contractConfirmed: false, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };
  const contract = await contractGates(sql, companyId);
  const rosterStaged = await hasRoster(sql, companyId);
  return { ...contract, rosterStaged, canSendLinks: contract.contractConfirmed && contract.paymentSatisfied && rosterStaged };
}
