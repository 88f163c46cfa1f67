import type { EntityManager } from '@mikro-orm/postgresql';
import { User, type UserRow } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import type { VerifiedCode } from './otp';

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

export type IdentifierKind = VerifiedCode['kind'];

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

/** Serializes every change of who holds one identifier, for the rest of the transaction. */
export async function lockIdentifier(em: EntityManager, hash: string): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [hash]);
}

interface Contender {
  id: string;
  holds: boolean;
  proven: boolean;
  claims: boolean;
  used: boolean;
}

/** Locks the account and every account holding or claiming the identifier, in id order, and reads them. */
async function lockContenders(em: EntityManager, kind: IdentifierKind, hash: string, userId: string): Promise<Contender[]> {
  return em.execute<Contender[]>(
    `select id, ${kind}_hash is not distinct from ? as holds, ${kind}_proven as proven,
            pending_${kind}_hash is not distinct from ? as claims, verified_at is not null as used
       from users where id = ? or ${kind}_hash = ? or pending_${kind}_hash = ?
      order by id for update`,
    [hash, hash, userId, hash, hash],
  );
}

/** The holder of an identifier, proven or not: the account a sign-in through it reaches. */
export async function findHolder(
  em: EntityManager,
  cipher: PersonalDataCipher,
  kind: IdentifierKind,
  value: string,
): Promise<{ id: string; proven: boolean } | undefined> {
  const [row] = await em.execute<{ id: string; proven: boolean }[]>(
    `select id, ${kind}_proven as proven from users where ${kind}_hash = ?`,
    [cipher.lookupHash(value)],
  );
  return row;
}

/**
 * Puts an identifier the account named itself on the account, unproven, inside the caller's
 * transaction; the caller sends it a code after commit. Answers `claimed` when another account holds
 * it unproven (the proof of this account's code moves it over); throws IdentifierTaken when another
 * account proved it.
 */
export async function nameIdentifier(
  em: EntityManager,
  cipher: PersonalDataCipher,
  userId: string,
  kind: IdentifierKind,
  value: string,
): Promise<'held' | 'claimed'> {
  const hash = cipher.lookupHash(value);
  await lockIdentifier(em, hash);
  const contenders = await lockContenders(em, kind, hash, userId);
  const holder = contenders.find((c) => c.holds);
  if (holder?.id === userId) return 'held';
  if (holder?.proven) throw new IdentifierTaken(kind);
  const encrypted = cipher.encrypt(value);
  if (holder) {
    await em.execute(`update users set pending_${kind}_hash = ?, pending_${kind}_encrypted = ?, updated_at = now() where id = ?`, [
      hash,
      encrypted,
      userId,
    ]);
    return 'claimed';
  }
  await em.execute(
    `update users set ${kind}_hash = ?, ${kind}_encrypted = ?, ${kind}_proven = false,
            pending_${kind}_hash = null, pending_${kind}_encrypted = null, updated_at = now()
      where id = ?`,
    [hash, encrypted, userId],
  );
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
export async function proveIdentifier(em: EntityManager, cipher: PersonalDataCipher, proof: VerifiedCode, mode: ProofMode): Promise<Proof> {
  const { kind, userId } = proof;
  const hash = cipher.lookupHash(proof.value);
  await lockIdentifier(em, hash);
  const contenders = await lockContenders(em, kind, hash, userId);
  const self = contenders.find((c) => c.id === userId);
  if (!self) throw new AppError('AUTH_INVALID_OTP');
  if (self.holds) {
    if (!self.proven) await em.execute(`update users set ${kind}_proven = true, updated_at = now() where id = ?`, [userId]);
    return { user: await reload(em, userId), newlyProven: !self.proven };
  }
  if (mode === 'sign-in' && !self.claims) throw new AppError('AUTH_INVALID_OTP');
  const holder = contenders.find((c) => c.holds);
  if (holder?.proven) throw new IdentifierTaken(kind);
  if (holder) await release(em, kind, holder);
  await em.execute(
    `update users set ${kind}_hash = ?, ${kind}_encrypted = ?, ${kind}_proven = true,
            pending_${kind}_hash = null, pending_${kind}_encrypted = null, updated_at = now()
      where id = ?`,
    [hash, cipher.encrypt(proof.value), userId],
  );
  for (const claimant of contenders.filter((c) => c.claims && c.id !== userId)) await release(em, kind, claimant);
  await takeFreedClaim(em, kind === 'phone' ? 'email' : 'phone', userId);
  return { user: await reload(em, userId), newlyProven: true };
}

/**
 * An account loses the identifier (held unproven, or claimed) to its prover. One that never signed in
 * is an abandoned registration and goes whole (nothing of it was ever used); any other keeps the rest.
 */
async function release(em: EntityManager, kind: IdentifierKind, account: Contender): Promise<void> {
  if (!account.used) {
    const deleted = await em.execute<{ id: string }[]>(
      'delete from users u where u.id = ? and not exists (select 1 from orders o where o.user_id = u.id) returning id',
      [account.id],
    );
    if (deleted.length > 0) return;
  }
  const column = account.holds ? kind : `pending_${kind}`;
  await em.execute(
    `update users set ${column}_hash = null, ${column}_encrypted = null${account.holds ? `, ${kind}_proven = true` : ''}, updated_at = now()
      where id = ?`,
    [account.id],
  );
}

/**
 * The prover's claim of the other kind becomes its identifier (unproven) once nobody holds it. Only
 * when that identifier's lock is free at once: waiting for it while holding this one could deadlock
 * with a registration of both, and a claim left as it is stays a claim (its own code still moves it).
 */
async function takeFreedClaim(em: EntityManager, kind: IdentifierKind, userId: string): Promise<void> {
  const [claim] = await em.execute<{ hash: string }[]>(`select pending_${kind}_hash as hash from users where id = ?`, [userId]);
  if (!claim?.hash) return;
  const [lock] = await em.execute<{ taken: boolean }[]>('select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as taken', [claim.hash]);
  if (!lock?.taken) return;
  await em.execute(
    `update users u set ${kind}_hash = u.pending_${kind}_hash, ${kind}_encrypted = u.pending_${kind}_encrypted, ${kind}_proven = false,
            pending_${kind}_hash = null, pending_${kind}_encrypted = null
      where u.id = ? and u.pending_${kind}_hash is not null and u.${kind}_hash is null
        and not exists (select 1 from users o where o.${kind}_hash = u.pending_${kind}_hash)`,
    [userId],
  );
}

async function reload(em: EntityManager, userId: string): Promise<UserRow> {
  return em.findOneOrFail(User, { id: userId }, { refresh: true });
}
