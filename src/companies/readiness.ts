import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../http/fields';
import type { Readiness } from '../../workflows/company-contract';

/**
 * The readiness gates of GET /b2b/readiness, read from the database (the spec's table): the company's
 * onboarding workflow recomputes them on every readiness signal, and the readiness routes can read
 * them the same way.
 */
export async function readinessOf(em: EntityManager, companyId: string): Promise<Readiness> {
  // An id that is not a UUID names no company: all false (as an unknown company), never a SQL cast error.
  if (!isUuid(companyId)) return { contractConfirmed: false, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };
  const contract = await contractGates(em, companyId);
  const rosterStaged = await hasRoster(em, companyId);
  return { ...contract, rosterStaged, canSendLinks: contract.contractConfirmed && contract.paymentSatisfied && rosterStaged };
}

/**
 * contractConfirmed: an active contract exists; paymentSatisfied: the payments recorded on it sum to at
 * least its total (the same rule in both modes), false with no active contract. One query, in halalas.
 */
async function contractGates(em: EntityManager, companyId: string): Promise<{ contractConfirmed: boolean; paymentSatisfied: boolean }> {
  const [row] = await em.execute<{ paid_enough: boolean }[]>(
    `select coalesce((select sum(p.amount_halalas) from contract_payments p where p.contract_id = c.id), 0) >= c.total_halalas as paid_enough
       from contracts c
      where c.company_id = ? and c.status = 'active'`,
    [companyId],
  );
  return { contractConfirmed: row !== undefined, paymentSatisfied: row?.paid_enough === true };
}

/** rosterStaged: at least one roster row exists (roster_entries.company_id). */
async function hasRoster(em: EntityManager, companyId: string): Promise<boolean> {
  const [row] = await em.execute<{ staged: boolean }[]>('select exists (select 1 from roster_entries where company_id = ?) as staged', [
    companyId,
  ]);
  return row?.staged === true;
}
