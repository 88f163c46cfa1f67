import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Whether the company has an active contract, which locks its payment mode (CONTRACT_ALREADY_EXISTS).
 * There is no contracts table yet: until the contracts issue adds one, no company has a contract and
 * the mode switches freely. That issue replaces this body with a read of its table (inside the
 * caller's transaction, where the company row is locked).
 */
export function hasActiveContract(em: EntityManager, companyId: string): Promise<boolean> {
  void em;
  void companyId;
  return Promise.resolve(false);
}
