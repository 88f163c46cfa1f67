import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isUniqueViolation, type Db, type Tx } from '../db/sql';
import type { AppRole } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { identifiersTaken, insertAccount } from './repository';

/** An account a super_admin creates: its identifiers count as proven (staff vouch for them). */
export interface NewAccount {
  name: string;
  appRole: AppRole;
  phone?: string;
  email?: string;
  managedAreas: string[] | null;
  managedAreasWrite: string[] | null;
}

export interface ProvisionDeps {
  db: Db;
  cipher: PersonalDataCipher;
  logger: Pick<Logger, 'error'>;
}

/**
 * Creates an account in one transaction, in two parts:
 * 1. the identity: the `users` row with its proven phone / e-mail (keyed hashes, ciphertext) and role;
 * 2. the profile: whatever the caller records about the new account (`profile`: areas, a company
 *    membership, the audit row).
 * An identifier already proven by another account answers ADMIN_USER_PHONE_EXISTS / _EMAIL_EXISTS,
 * first from a lookup and, when two requests race past it, from the unique index. Any other failure
 * of the identity is ADMIN_USER_CREATE_FAILED; a failure of the profile is ADMIN_USER_PROFILE_NOT_CREATED.
 * Either way the transaction rolls back, so no identity is ever left without its profile.
 */
export async function provisionAccount(
  deps: ProvisionDeps,
  account: NewAccount,
  now: Date,
  profile: (tx: Tx, userId: string) => Promise<void>,
): Promise<string> {
  const { cipher } = deps;
  const phoneHash = account.phone ? cipher.lookupHash(account.phone) : null;
  const emailHash = account.email ? cipher.lookupHash(account.email) : null;
  try {
    return await deps.db.transaction(async (tx) => {
      await assertIdentifiersFree(tx, phoneHash, emailHash);
      const id = randomUUID();
      await insertIdentity(deps, tx, id, account, { phoneHash, emailHash }, now);
      try {
        await profile(tx, id);
      } catch (err) {
        if (err instanceof AppError) throw err;
        deps.logger.error({ err }, 'account profile not created: the identity is rolled back');
        throw new AppError('ADMIN_USER_PROFILE_NOT_CREATED');
      }
      return id;
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    // The commit itself failed (or the connection): nothing was kept.
    deps.logger.error({ err }, 'account not created');
    throw new AppError('ADMIN_USER_CREATE_FAILED');
  }
}

async function assertIdentifiersFree(tx: Tx, phoneHash: string | null, emailHash: string | null): Promise<void> {
  const taken = await identifiersTaken(tx, phoneHash, emailHash);
  if (taken.phone) throw new AppError('ADMIN_USER_PHONE_EXISTS');
  if (taken.email) throw new AppError('ADMIN_USER_EMAIL_EXISTS');
}

async function insertIdentity(
  deps: ProvisionDeps,
  tx: Tx,
  id: string,
  account: NewAccount,
  hashes: { phoneHash: string | null; emailHash: string | null },
  now: Date,
): Promise<void> {
  const { cipher } = deps;
  try {
    await insertAccount(tx, {
      id,
      name: account.name,
      appRole: account.appRole,
      phoneEncrypted: account.phone ? cipher.encrypt(account.phone) : null,
      phoneHash: hashes.phoneHash,
      emailEncrypted: account.email ? cipher.encrypt(account.email) : null,
      emailHash: hashes.emailHash,
      managedAreas: account.managedAreas,
      managedAreasWrite: account.managedAreasWrite,
      now,
    });
  } catch (err) {
    // Another request proved the identifier between the lookup and this insert.
    if (isUniqueViolation(err, 'users_phone_hash_unique')) throw new AppError('ADMIN_USER_PHONE_EXISTS');
    if (isUniqueViolation(err, 'users_email_hash_unique')) throw new AppError('ADMIN_USER_EMAIL_EXISTS');
    deps.logger.error({ err }, 'account identity not created');
    throw new AppError('ADMIN_USER_CREATE_FAILED');
  }
}
