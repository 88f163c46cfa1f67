import { randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../config';
import type { OtpPurpose } from '../entities';
import { AppError } from '../http/errors';
import { safeEqual, type PersonalDataCipher } from '../lib/crypto';
import type { MessageSender } from '../providers/messages';
import type { Sql } from '../db/sql';
import * as repo from './repository';

/** Purposes whose codes belong to the signed-in user who asked (the others sign someone in). */
const USER_BOUND: readonly OtpPurpose[] = ['change_phone', 'change_email'];

export type OtpConfig = Pick<Config, 'OTP_TTL_SECONDS' | 'OTP_MAX_ATTEMPTS' | 'OTP_MAX_REQUESTS' | 'OTP_WINDOW_SECONDS'>;

export interface OtpDeps {
  cipher: PersonalDataCipher;
  clock: () => Date;
  config: OtpConfig;
  messages: MessageSender;
}

export interface ChallengeTarget {
  purpose: OtpPurpose;
  userId: string;
  phone?: string;
  email?: string;
}

/** One code for one identifier: a code is only ever sent to one phone or one e-mail. */
export interface IssuedCode {
  code: string;
  purpose: OtpPurpose;
  userId: string;
  kind: 'phone' | 'email';
  to: string;
}

/** Where a verification looks: the identifiers and purposes it accepts, optionally bound to one user. */
export interface ChallengeQuery {
  purposes: OtpPurpose[];
  phone?: string;
  email?: string;
  userId?: string;
}

/** What a verified code proves: this user's challenge reached this identifier. */
export interface VerifiedCode {
  userId: string;
  kind: 'phone' | 'email';
  /** The identifier as the request gave it. */
  value: string;
  /** The challenge the code matched: the caller consumes it in the transaction that acts on the proof. */
  challengeId: string;
}

/**
 * One-time codes: 6 digits, stored as an HMAC, 300 s lifetime, 5 attempts,
 * 3 requests per identifier per 15 minutes. Counting happens in SQL so it stays
 * exact under parallel requests.
 */
export function createOtpService(deps: OtpDeps) {
  const { cipher, clock, config } = deps;
  const codeHash = (challengeId: string, code: string) => cipher.lookupHash(`otp:${challengeId}:${code}`);

  /**
   * Counts one OTP request per identifier, inside the caller's transaction.
   * The identifier's lock (identifiers.ts) serializes concurrent requests, so the
   * 4th of 4 parallel requests is refused; it is held until commit.
   */
  async function countRequest(tx: Sql, identifiers: Array<string | undefined>): Promise<void> {
    const hashes = [...new Set(identifiers.filter((v): v is string => !!v).map((v) => cipher.lookupHash(v)))].sort();
    const now = clock();
    const since = new Date(now.getTime() - config.OTP_WINDOW_SECONDS * 1000);
    for (const hash of hashes) {
      await repo.lockIdentifier(tx, hash);
      if ((await repo.countOtpRequests(tx, hash, since)) >= config.OTP_MAX_REQUESTS) throw new AppError('AUTH_RATE_LIMIT_EXCEEDED');
      await repo.insertOtpRequest(tx, { id: randomUUID(), hash, now });
    }
  }

  /**
   * Creates the challenges inside the caller's transaction: one per identifier, each with its own
   * code, so verifying a code proves exactly the identifier it was sent to (a code sent to both a
   * phone and an e-mail would prove neither in particular). Send the codes after commit. A new
   * code supersedes the open codes of the same identifier and purpose family, so only the newest
   * one works. Phone- and e-mail-change codes are bound to their user, so only that user's own
   * open codes are superseded: another user asking for the same identifier must not void them.
   */
  async function createChallenge(tx: Sql, target: ChallengeTarget): Promise<IssuedCode[]> {
    const { purpose, userId } = target;
    const issued: IssuedCode[] = [];
    if (target.phone) issued.push(await createOne(tx, { purpose, userId, kind: 'phone', to: target.phone }));
    if (target.email) issued.push(await createOne(tx, { purpose, userId, kind: 'email', to: target.email }));
    return issued;
  }

  async function createOne(tx: Sql, target: Omit<IssuedCode, 'code'>): Promise<IssuedCode> {
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = clock();
    const hash = cipher.lookupHash(target.to);
    const userBound = USER_BOUND.includes(target.purpose);
    await repo.supersedeChallenges(tx, { kind: target.kind, hash, purpose: target.purpose, userBound, userId: target.userId }, now);
    await repo.insertChallenge(tx, {
      id,
      purpose: target.purpose,
      userId: target.userId,
      kind: target.kind,
      hash,
      codeHash: codeHash(id, code),
      expiresAt: new Date(now.getTime() + config.OTP_TTL_SECONDS * 1000),
      now,
    });
    return { ...target, code };
  }

  /** Sends each code to its one identifier. */
  async function send(issued: IssuedCode[]): Promise<void> {
    for (const { code, purpose, kind, to } of issued) {
      const text = `Your activation-sys code is ${code}. It expires in ${Math.round(config.OTP_TTL_SECONDS / 60)} minutes.`;
      const content = { kind: 'otp', code, ttlSeconds: config.OTP_TTL_SECONDS } as const;
      await deps.messages.send({ channel: kind === 'phone' ? 'sms' : 'email', to, purpose: `otp.${purpose}`, text, content });
    }
  }

  /**
   * Checks a code against the newest open challenge of each identifier the query gives (each
   * identifier has its own code). Each call spends one attempt on each of those challenges
   * atomically; past the maximum, or past the lifetime, a challenge reads AUTH_EXPIRED_OTP. Returns
   * whose challenge it was and which identifier the code proved; the caller consumes it (consume())
   * in the transaction that acts on the proof, so a request that fails after the check (Postgres
   * away: 503) leaves the code valid for its retry. Call it outside a transaction: a wrong code must
   * still spend its attempt.
   */
  async function verify(sql: Sql, query: ChallengeQuery, code: string): Promise<VerifiedCode> {
    const candidates: Array<{ kind: VerifiedCode['kind']; value: string; challenge: repo.OpenChallenge }> = [];
    for (const kind of ['phone', 'email'] as const) {
      const value = query[kind];
      if (!value) continue;
      const where = { kind, hash: cipher.lookupHash(value), purposes: query.purposes, userId: query.userId };
      const challenge = await repo.newestOpenChallenge(sql, where);
      if (challenge) candidates.push({ kind, value, challenge });
    }
    if (candidates.length === 0) throw new AppError('AUTH_INVALID_OTP');
    let allSpent = true;
    for (const { kind, value, challenge } of candidates) {
      const outcome = await attempt(sql, challenge, code);
      if (outcome === 'match') return { userId: challenge.userId, kind, value, challengeId: challenge.id };
      if (outcome === 'wrong') allSpent = false;
    }
    throw new AppError(allSpent ? 'AUTH_EXPIRED_OTP' : 'AUTH_INVALID_OTP');
  }

  /** Spends one attempt on a challenge: the code matches, is wrong, or the challenge is spent. */
  async function attempt(sql: Sql, challenge: repo.OpenChallenge, code: string): Promise<'match' | 'wrong' | 'spent'> {
    const now = clock();
    if (new Date(challenge.expiresAt).getTime() <= now.getTime()) return 'spent';
    const spent = await repo.spendAttempt(sql, challenge.id, config.OTP_MAX_ATTEMPTS);
    // No attempt left; or the row is gone: a parallel proof removed its never-used account (a wrong code, not a spent one).
    if (!spent) return (await repo.challengeExists(sql, challenge.id)) ? 'spent' : 'wrong';
    // Consumed by a parallel request since we read it: the code is spent.
    if (spent.consumed || !safeEqual(spent.codeHash, codeHash(challenge.id, code))) return 'wrong';
    return 'match';
  }

  /** Consumes the matched challenge in the caller's transaction; a parallel request that consumed it first wins. */
  async function consume(tx: Sql, proof: VerifiedCode): Promise<void> {
    if (!(await repo.consumeChallenge(tx, proof.challengeId, clock()))) throw new AppError('AUTH_INVALID_OTP');
  }

  return { countRequest, createChallenge, send, verify, consume };
}

export type OtpService = ReturnType<typeof createOtpService>;
