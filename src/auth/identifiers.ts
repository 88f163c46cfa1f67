import type { Sql } from '../db/sql';
import type { UserRow } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import type { VerifiedCode } from './otp';
import * as repo from './repository';
import type { Contender, IdentifierKind } from './repository';

/**
 * An account's phone and e-mail, each with its own proof state (src/entities/user.ts).
 *
 * - Naming (register, PUT /auth/me) puts an identifier on the account unproven: shown, and a
 *   sign-in through it sends a code to it. An identifier another account holds unproven cannot be
 *   held twice, so the naming account keeps it as a claim (`pending*`) instead.
 * - Proving (a code sent to it was verified) marks it proven, or moves it to the prover: from an
 *   account that holds it unproven, and from every other account's claim. An account that never
 *   signed in and loses an identifier this way is an abandoned registration: it is removed, which
 *   frees its other identifier for the prover's claim.
 * - A proven identifier belongs to its account: naming or proving it elsewhere is refused.
 *
 * Everything that changes who holds an identifier first takes the identifier's lock (the one the OTP
 * request counter takes), so a registration and a proof of one identifier never interleave.
 */

export type { IdentifierKind };

/**
 * Why the identifier is being proven. `sign-in`: a register or login code, which may only prove
 * what the account already holds or claims. `change`: a phone- or e-mail-change code, bound to the
 * signed-in user and the new identifier when it was sent.
 */
export type ProofMode = 'sign-in' | 'change';

/** Another account proved the identifier first. */
export class IdentifierTaken extends Error {
  constructor(readonly kind: IdentifierKind) {
    super(`${kind} already proven by another account`);
    this.name = 'IdentifierTaken';
  }
}

/** The holder of an identifier, proven or not: the account a sign-in through it reaches. */
export async function findHolder(
  sql: Sql,
  cipher: PersonalDataCipher,
  kind: IdentifierKind,
  value: string,
): Promise<{ id: string; proven: boolean } | undefined> {
  return repo.findHolder(sql, kind, cipher.lookupHash(value));
}

/**
 * Puts an identifier the account named itself on the account, unproven, inside the caller's
 * transaction; the caller sends it a code after commit. Answers `claimed` when another account holds
 * it unproven (the proof of this account's code moves it over); throws IdentifierTaken when another
 * account proved it.
 */
export async function nameIdentifier(
  tx: Sql,
  cipher: PersonalDataCipher,
  userId: string,
  kind: IdentifierKind,
  value: string,
): Promise<'held' | 'claimed'> {
  const hash = cipher.lookupHash(value);
  await repo.lockIdentifier(tx, hash);
  const contenders = await repo.lockContenders(tx, kind, hash, userId);
  const holder = contenders.find((c) => c.holds);
  if (holder?.id === userId) return 'held';
  if (holder?.proven) throw new IdentifierTaken(kind);
  const encrypted = cipher.encrypt(value);
  if (holder) {
    await repo.claimIdentifier(tx, userId, kind, { hash, encrypted });
    return 'claimed';
  }
  await repo.holdIdentifier(tx, userId, kind, { hash, encrypted, proven: false });
  return 'held';
}

/** What a proof did: the account as it is now, and whether this identifier was unproven on it until now. */
export interface Proof {
  user: UserRow;
  newlyProven: boolean;
}

/**
 * Records that `proof.userId` proved `proof.value`, inside the caller's transaction. A sign-in code
 * for an identifier the account neither holds nor claims (any more) is AUTH_INVALID_OTP; an identifier
 * another account proved first throws IdentifierTaken.
 */
export async function proveIdentifier(tx: Sql, cipher: PersonalDataCipher, proof: VerifiedCode, mode: ProofMode): Promise<Proof> {
  const { kind, userId } = proof;
  const hash = cipher.lookupHash(proof.value);
  await repo.lockIdentifier(tx, hash);
  const contenders = await repo.lockContenders(tx, kind, hash, userId);
  const self = contenders.find((c) => c.id === userId);
  if (!self) throw new AppError('AUTH_INVALID_OTP');
  if (self.holds) {
    if (!self.proven) await repo.markProven(tx, userId, kind);
    return { user: await reload(tx, userId), newlyProven: !self.proven };
  }
  if (mode === 'sign-in' && !self.claims) throw new AppError('AUTH_INVALID_OTP');
  const holder = contenders.find((c) => c.holds);
  if (holder?.proven) throw new IdentifierTaken(kind);
  if (holder) await release(tx, kind, holder);
  await repo.holdIdentifier(tx, userId, kind, { hash, encrypted: cipher.encrypt(proof.value), proven: true });
  for (const claimant of contenders.filter((c) => c.claims && c.id !== userId)) await release(tx, kind, claimant);
  await takeFreedClaim(tx, kind === 'phone' ? 'email' : 'phone', userId);
  return { user: await reload(tx, userId), newlyProven: true };
}

/**
 * An account loses the identifier (held unproven, or claimed) to its prover. One that never signed in
 * is an abandoned registration and goes whole (nothing of it was ever used); any other keeps the rest.
 */
async function release(tx: Sql, kind: IdentifierKind, account: Contender): Promise<void> {
  if (!account.used && (await repo.deleteAbandoned(tx, account.id))) return;
  await repo.dropIdentifier(tx, account.id, kind, account.holds ? 'held' : 'claim');
}

/**
 * The prover's claim of the other kind becomes its identifier (unproven) once nobody holds it. Only
 * when that identifier's lock is free at once: waiting for it while holding this one could deadlock
 * with a registration of both, and a claim left as it is stays a claim (its own code still moves it).
 */
async function takeFreedClaim(tx: Sql, kind: IdentifierKind, userId: string): Promise<void> {
  const hash = await repo.claimedHash(tx, userId, kind);
  if (!hash || !(await repo.tryLockIdentifier(tx, hash))) return;
  await repo.takeFreedClaim(tx, userId, kind);
}

async function reload(tx: Sql, userId: string): Promise<UserRow> {
  const user = await repo.findUser(tx, userId);
  if (!user) throw new AppError('AUTH_INVALID_OTP');
  return user;
}
