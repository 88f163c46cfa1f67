import { randomInt, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { OtpPurpose } from '../entities';
import { AppError } from '../http/errors';
import { safeEqual, type PersonalDataCipher } from '../lib/crypto';
import type { MessageSender } from '../providers/messages';
import { lockIdentifier } from './identifiers';

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
}

interface OpenChallenge {
  id: string;
  user_id: string;
  expires_at: Date;
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
  async function countRequest(em: EntityManager, identifiers: Array<string | undefined>): Promise<void> {
    const hashes = [...new Set(identifiers.filter((v): v is string => !!v).map((v) => cipher.lookupHash(v)))].sort();
    const now = clock();
    const since = new Date(now.getTime() - config.OTP_WINDOW_SECONDS * 1000);
    for (const hash of hashes) {
      await lockIdentifier(em, hash);
      const [row] = await em.execute<{ n: string }[]>(
        'select count(*) as n from otp_requests where identifier_hash = ? and created_at > ?',
        [hash, since],
      );
      if (Number(row?.n ?? 0) >= config.OTP_MAX_REQUESTS) throw new AppError('AUTH_RATE_LIMIT_EXCEEDED');
      await em.execute('insert into otp_requests (id, identifier_hash, created_at) values (?, ?, ?)', [randomUUID(), hash, now]);
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
  async function createChallenge(em: EntityManager, target: ChallengeTarget): Promise<IssuedCode[]> {
    const { purpose, userId } = target;
    const issued: IssuedCode[] = [];
    if (target.phone) issued.push(await createOne(em, { purpose, userId, kind: 'phone', to: target.phone }));
    if (target.email) issued.push(await createOne(em, { purpose, userId, kind: 'email', to: target.email }));
    return issued;
  }

  async function createOne(em: EntityManager, target: Omit<IssuedCode, 'code'>): Promise<IssuedCode> {
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = clock();
    const perUser = USER_BOUND.includes(target.purpose);
    const family = perUser ? [target.purpose] : ['register', 'login'];
    const column = `${target.kind}_hash`;
    const hash = cipher.lookupHash(target.to);
    await em.execute(
      `update otp_challenges set consumed_at = ?
        where consumed_at is null and purpose in (${family.map(() => '?').join(', ')}) and ${column} = ?
          ${perUser ? 'and user_id = ?' : ''}`,
      [now, ...family, hash, ...(perUser ? [target.userId] : [])],
    );
    await em.execute(
      `insert into otp_challenges (id, purpose, user_id, phone_hash, email_hash, code_hash, attempts, expires_at, created_at)
       values (?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      [
        id,
        target.purpose,
        target.userId,
        target.kind === 'phone' ? hash : null,
        target.kind === 'email' ? hash : null,
        codeHash(id, code),
        new Date(now.getTime() + config.OTP_TTL_SECONDS * 1000),
        now,
      ],
    );
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
   * identifier has its own code) and consumes the one it matches. Each call spends one attempt on
   * each of those challenges atomically; past the maximum, or past the lifetime, a challenge reads
   * AUTH_EXPIRED_OTP. Returns whose challenge it was and which identifier the code proved.
   * Call it outside a transaction: a wrong code must still spend its attempt.
   */
  async function verify(em: EntityManager, query: ChallengeQuery, code: string): Promise<VerifiedCode> {
    const candidates: Array<{ kind: VerifiedCode['kind']; value: string; challenge: OpenChallenge }> = [];
    for (const kind of ['phone', 'email'] as const) {
      const value = query[kind];
      if (!value) continue;
      const challenge = await newestOpen(em, query, `${kind}_hash`, cipher.lookupHash(value));
      if (challenge) candidates.push({ kind, value, challenge });
    }
    if (candidates.length === 0) throw new AppError('AUTH_INVALID_OTP');
    let allSpent = true;
    for (const { kind, value, challenge } of candidates) {
      const outcome = await attempt(em, challenge, code);
      if (outcome === 'match') return { userId: challenge.user_id, kind, value };
      if (outcome === 'wrong') allSpent = false;
    }
    throw new AppError(allSpent ? 'AUTH_EXPIRED_OTP' : 'AUTH_INVALID_OTP');
  }

  async function newestOpen(em: EntityManager, query: ChallengeQuery, column: string, hash: string): Promise<OpenChallenge | undefined> {
    const [challenge] = await em.execute<OpenChallenge[]>(
      `select id, user_id, expires_at from otp_challenges
        where ${column} = ? and consumed_at is null and purpose in (${query.purposes.map(() => '?').join(', ')})
        ${query.userId ? 'and user_id = ?' : ''}
        order by created_at desc, id desc limit 1`,
      [hash, ...query.purposes, ...(query.userId ? [query.userId] : [])],
    );
    return challenge;
  }

  /** Spends one attempt on a challenge: the code matches (and is consumed), is wrong, or the challenge is spent. */
  async function attempt(em: EntityManager, challenge: OpenChallenge, code: string): Promise<'match' | 'wrong' | 'spent'> {
    const now = clock();
    if (new Date(challenge.expires_at).getTime() <= now.getTime()) return 'spent';
    const [spent] = await em.execute<{ code_hash: string; consumed_at: Date | null }[]>(
      'update otp_challenges set attempts = attempts + 1 where id = ? and attempts < ? returning code_hash, consumed_at',
      [challenge.id, config.OTP_MAX_ATTEMPTS],
    );
    if (!spent) return (await challengeExists(em, challenge.id)) ? 'spent' : 'wrong';
    // Consumed by a parallel request since we read it: the code is spent.
    if (spent.consumed_at || !safeEqual(spent.code_hash, codeHash(challenge.id, code))) return 'wrong';
    const consumed = await em.execute<{ id: string }[]>(
      'update otp_challenges set consumed_at = ? where id = ? and consumed_at is null returning id',
      [now, challenge.id],
    );
    return consumed.length === 0 ? 'wrong' : 'match';
  }

  /** False when a parallel proof removed the challenge's never-used account (and the challenge with it) since we read it. */
  async function challengeExists(em: EntityManager, id: string): Promise<boolean> {
    const rows = await em.execute<unknown[]>('select 1 from otp_challenges where id = ?', [id]);
    return rows.length > 0;
  }

  return { countRequest, createChallenge, send, verify };
}

export type OtpService = ReturnType<typeof createOtpService>;
