import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { User, type UserRow } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import type { VerifiedCode } from './otp';

/**
 * Identifiers are proven one at a time, each by the code sent to it. A proven identifier lives in
 * `phone*` / `email*` (unique, signs in); a registration's other identifier waits in `pending*`
 * until its own code proves it. Proving one releases every other account's pending claim on it,
 * and removes an account that never signed in and is left with no identifier at all.
 */

/**
 * Why the identifier is being proven. `sign-in`: a register or login code, which may only prove
 * what the account already holds or claims. `change`: a phone- or e-mail-change code, bound to the
 * signed-in user and the new identifier when it was sent.
 */
export type ProofMode = 'sign-in' | 'change';

/** Another account proved the identifier first (the unique index said so). */
export class IdentifierTaken extends Error {
  constructor(readonly kind: VerifiedCode['kind']) {
    super(`${kind} already proven by another account`);
    this.name = 'IdentifierTaken';
  }
}

const COLUMNS = {
  phone: { hash: 'phoneHash', encrypted: 'phoneEncrypted', pendingHash: 'pendingPhoneHash', pendingEncrypted: 'pendingPhoneEncrypted' },
  email: { hash: 'emailHash', encrypted: 'emailEncrypted', pendingHash: 'pendingEmailHash', pendingEncrypted: 'pendingEmailEncrypted' },
} as const;

/**
 * Records that `proof.userId` proved `proof.value`, inside the caller's transaction, under a lock on
 * the user row. A sign-in code for an identifier the account neither holds nor claims (any more) is
 * AUTH_INVALID_OTP; an identifier another account proved first throws IdentifierTaken.
 */
export async function proveIdentifier(
  em: EntityManager,
  cipher: PersonalDataCipher,
  proof: VerifiedCode,
  mode: ProofMode,
): Promise<UserRow> {
  const col = COLUMNS[proof.kind];
  const hash = cipher.lookupHash(proof.value);
  await lockContenders(em, proof, hash);
  const user = await em.findOne(User, { id: proof.userId }, { refresh: true });
  if (!user) throw new AppError('AUTH_INVALID_OTP');
  if (user[col.hash] === hash) return user;
  if (mode === 'sign-in' && user[col.pendingHash] !== hash) throw new AppError('AUTH_INVALID_OTP');

  user[col.hash] = hash;
  user[col.encrypted] = cipher.encrypt(proof.value);
  // The account holds one phone and one e-mail: a claim of the same kind is settled now.
  user[col.pendingHash] = null;
  user[col.pendingEncrypted] = null;
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new IdentifierTaken(proof.kind);
    throw err;
  }
  await releaseClaims(em, proof.kind, hash, proof.userId);
  return user;
}

/**
 * Locks the account and every account holding or claiming the identifier, in id order. Two proofs of
 * one identifier at once (a sign-in completing a registration and a phone change, say) then queue: the
 * second reads what the first committed. Locking only its own row let them deadlock: one waited on the
 * other's uncommitted unique entry while the other waited for the first's row to release its claim.
 */
async function lockContenders(em: EntityManager, proof: VerifiedCode, hash: string): Promise<void> {
  const column = proof.kind === 'phone' ? 'phone' : 'email';
  await em.execute(`select id from users where id = ? or ${column}_hash = ? or pending_${column}_hash = ? order by id for update`, [
    proof.userId,
    hash,
    hash,
  ]);
}

/** Other accounts' pending claims on a now-proven identifier go; a never-used account left empty goes with them. */
async function releaseClaims(em: EntityManager, kind: VerifiedCode['kind'], hash: string, keeper: string): Promise<void> {
  const column = kind === 'phone' ? 'pending_phone' : 'pending_email';
  const released = await em.execute<{ id: string }[]>(
    `update users set ${column}_hash = null, ${column}_encrypted = null, updated_at = now()
      where ${column}_hash = ? and id <> ? returning id`,
    [hash, keeper],
  );
  if (released.length === 0) return;
  await em.execute(
    `delete from users u
      where u.id in (${released.map(() => '?').join(', ')}) and u.verified_at is null
        and u.phone_hash is null and u.email_hash is null and u.pending_phone_hash is null and u.pending_email_hash is null
        and not exists (select 1 from orders o where o.user_id = u.id)`,
    released.map((r) => r.id),
  );
}
