import type { EntityManager } from '@mikro-orm/postgresql';
import type { Readiness } from '../../workflows/company-contract';

/**
 * The readiness gates of GET /b2b/readiness, read from the database (the spec's table): the company's
 * onboarding workflow recomputes them on every readiness signal, and the readiness routes can read
 * them the same way.
 */
export async function readinessOf(em: EntityManager, companyId: string): Promise<Readiness> {
  const contract = await contractGates(); // (em, companyId) once contracts exist
  const rosterStaged = await hasRoster(em, companyId);
  return { ...contract, rosterStaged, canSendLinks: contract.contractConfirmed && contract.paymentSatisfied && rosterStaged };
}

/**
 * contractConfirmed: an active contract exists; paymentSatisfied: the payments recorded on it sum to at
 * least its total (both modes), false with no active contract. There are no contract tables yet: both
 * stay false until the quotes issue writes this query here, on the same `em` and company id (and
 * signals `contractConfirmed` / `paymentSatisfied` after its writes commit).
 */
function contractGates(): Promise<{ contractConfirmed: boolean; paymentSatisfied: boolean }> {
  return Promise.resolve({ contractConfirmed: false, paymentSatisfied: false });
}

/** rosterStaged: at least one roster row exists (roster_entries.company_id). */
async function hasRoster(em: EntityManager, companyId: string): Promise<boolean> {
  const [row] = await em.execute<{ staged: boolean }[]>('select exists (select 1 from roster_entries where company_id = ?) as staged', [
    companyId,
  ]);
  return row?.staged === true;
}
