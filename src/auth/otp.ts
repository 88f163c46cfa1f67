import { randomInt, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { OtpPurpose } from '../entities';
import { AppError } from '../http/errors';
import { safeEqual, type PersonalDataCipher } from '../lib/crypto';
import type { MessageSender } from '../providers/messages';

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

export interface IssuedCode {
  code: string;
  target: ChallengeTarget;
}

/** Where a verification looks: the identifiers and purposes it accepts, optionally bound to one user. */
export interface ChallengeQuery {
  purposes: OtpPurpose[];
  phone?: string;
  email?: string;
  userId?: string;
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
   * An advisory lock per identifier serializes concurrent requests, so the 4th
   * of 4 parallel requests is refused.
   */
  async function countRequest(em: EntityManager, identifiers: Array<string | undefined>): Promise<void> {
    const hashes = [...new Set(identifiers.filter((v): v is string => !!v).map((v) => cipher.lookupHash(v)))].sort();
    const now = clock();
    const since = new Date(now.getTime() - config.OTP_WINDOW_SECONDS * 1000);
    for (const hash of hashes) {
      await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [hash]);
      const [row] = await em.execute<{ n: string }[]>(
        'select count(*) as n from otp_requests where identifier_hash = ? and created_at > ?',
        [hash, since],
      );
      if (Number(row?.n ?? 0) >= config.OTP_MAX_REQUESTS) throw new AppError('AUTH_RATE_LIMIT_EXCEEDED');
      await em.execute('insert into otp_requests (id, identifier_hash, created_at) values (?, ?, ?)', [randomUUID(), hash, now]);
    }
  }

  /**
   * Creates a challenge inside the caller's transaction; send the code after
   * commit. A new code supersedes the open codes of the same identifiers and
   * purpose family, so only the newest one works. Phone-change codes are bound
   * to their user, so only that user's own open codes are superseded: another
   * user asking for the same number must not void them.
   */
  async function createChallenge(em: EntityManager, target: ChallengeTarget): Promise<IssuedCode> {
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = clock();
    const perUser = target.purpose === 'change_phone';
    const family = perUser ? ['change_phone'] : ['register', 'login'];
    const hashes = [target.phone, target.email].filter((v): v is string => !!v).map((v) => cipher.lookupHash(v));
    await em.execute(
      `update otp_challenges set consumed_at = ?
        where consumed_at is null and purpose in (${family.map(() => '?').join(', ')})
          and (phone_hash in (${hashes.map(() => '?').join(', ')}) or email_hash in (${hashes.map(() => '?').join(', ')}))
          ${perUser ? 'and user_id = ?' : ''}`,
      [now, ...family, ...hashes, ...hashes, ...(perUser ? [target.userId] : [])],
    );
    await em.execute(
      `insert into otp_challenges (id, purpose, user_id, phone_hash, email_hash, code_hash, attempts, expires_at, created_at)
       values (?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      [
        id,
        target.purpose,
        target.userId,
        target.phone ? cipher.lookupHash(target.phone) : null,
        target.email ? cipher.lookupHash(target.email) : null,
        codeHash(id, code),
        new Date(now.getTime() + config.OTP_TTL_SECONDS * 1000),
        now,
      ],
    );
    return { code, target };
  }

  /** Sends the code over every channel the challenge names. */
  async function send({ code, target }: IssuedCode): Promise<void> {
    const purpose = `otp.${target.purpose}`;
    const text = `Your activation-sys code is ${code}. It expires in ${Math.round(config.OTP_TTL_SECONDS / 60)} minutes.`;
    if (target.phone) await deps.messages.send({ channel: 'sms', to: target.phone, purpose, text });
    if (target.email) await deps.messages.send({ channel: 'email', to: target.email, purpose, text });
  }

  /**
   * Checks a code against the newest open challenge that matches the query and
   * consumes it. Each call spends one attempt atomically; past the maximum, or
   * past the lifetime, the answer is AUTH_EXPIRED_OTP. Returns the challenge's user id.
   * Call it outside a transaction: a wrong code must still spend its attempt.
   */
  async function verify(em: EntityManager, query: ChallengeQuery, code: string): Promise<string> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (query.phone) {
      clauses.push('phone_hash = ?');
      params.push(cipher.lookupHash(query.phone));
    }
    if (query.email) {
      clauses.push('email_hash = ?');
      params.push(cipher.lookupHash(query.email));
    }
    const [challenge] = await em.execute<{ id: string; user_id: string; expires_at: Date }[]>(
      `select id, user_id, expires_at from otp_challenges
        where (${clauses.join(' or ')}) and consumed_at is null and purpose in (${query.purposes.map(() => '?').join(', ')})
        ${query.userId ? 'and user_id = ?' : ''}
        order by created_at desc, id desc limit 1`,
      [...params, ...query.purposes, ...(query.userId ? [query.userId] : [])],
    );
    if (!challenge) throw new AppError('AUTH_INVALID_OTP');
    const now = clock();
    if (new Date(challenge.expires_at).getTime() <= now.getTime()) throw new AppError('AUTH_EXPIRED_OTP');

    const [spent] = await em.execute<{ code_hash: string; consumed_at: Date | null }[]>(
      'update otp_challenges set attempts = attempts + 1 where id = ? and attempts < ? returning code_hash, consumed_at',
      [challenge.id, config.OTP_MAX_ATTEMPTS],
    );
    if (!spent) throw new AppError('AUTH_EXPIRED_OTP');
    // Consumed by a parallel request since we read it: the code is spent.
    if (spent.consumed_at || !safeEqual(spent.code_hash, codeHash(challenge.id, code))) throw new AppError('AUTH_INVALID_OTP');

    const consumed = await em.execute<{ id: string }[]>(
      'update otp_challenges set consumed_at = ? where id = ? and consumed_at is null returning id',
      [now, challenge.id],
    );
    if (consumed.length === 0) throw new AppError('AUTH_INVALID_OTP');
    return challenge.user_id;
  }

  return { countRequest, createChallenge, send, verify };
}

export type OtpService = ReturnType<typeof createOtpService>;
