import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Whether the company has an active contract, which locks its payment mode (CONTRACT_ALREADY_EXISTS).
 * Read on the caller's `em`, inside its transaction where the company row is locked: a contract
 * confirmation that takes the same company row lock cannot slip between this read and the mode write.
 */
export async function hasActiveContract(em: EntityManager, companyId: string): Promise<boolean> {
  const [row] = await em.execute<{ found: boolean }[]>(
    `select exists (select 1 from contracts where company_id = ? and status = 'active') as found`,
    [companyId],
  );
  return row?.found === true;
}
