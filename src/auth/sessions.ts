import { createSecretKey, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Db, Sql } from '../db/sql';
import type { Config } from '../config';
import type { ClientType } from '../entities';
import { AppError } from '../http/errors';
import { sha256Hex } from '../lib/crypto';
import { deviceHasher } from './devices';
import * as repo from './repository';
import type { Principal } from '../http/principal';
import type { SessionCache } from './session-cache';

export type SessionConfig = Pick<
  Config,
  'JWT_SECRET' | 'JWT_ISSUER' | 'JWT_AUDIENCE' | 'WEB_SESSION_SECONDS' | 'MOBILE_SESSION_SECONDS' | 'DATA_HASH_KEY'
>;

export interface SessionDeps {
  db: Db;
  clock: () => Date;
  config: SessionConfig;
  /** Verified sessions kept briefly, evicted on any change (see session-cache.ts). */
  cache?: SessionCache;
}

export interface IssuedSession {
  id: string;
  token: string;
  clientType: ClientType;
  expiresAt: Date;
}

// The caller as a request knows it: its own module, which the session cache reads too.
export type { Principal, PrincipalUser } from '../http/principal';

const ALGORITHM = 'HS256';

/**
 * Sessions are JWTs (HS256 pinned; iss, aud and exp checked) whose `jti` is a
 * row in `sessions`, so every session of a user can be revoked at once. Mobile
 * logout also blocklists the token's SHA-256 until it would have expired.
 */
export function createSessionService(deps: SessionDeps) {
  const { config, clock } = deps;
  const key = createSecretKey(Buffer.from(config.JWT_SECRET, 'utf8'));
  const deviceHash = deviceHasher(config.DATA_HASH_KEY);

  /** A new session; the device it signs in from (X-Device-Id), if any, is kept (hashed) so blocklisting the device ends it. */
  /** `sql`: the transaction that signs the person in, so the session exists only if it commits. */
  async function issue(userId: string, clientType: ClientType, deviceId?: string, sql: Sql = deps.db): Promise<IssuedSession> {
    const id = randomUUID();
    const now = clock();
    const lifetime = clientType === 'web' ? config.WEB_SESSION_SECONDS : config.MOBILE_SESSION_SECONDS;
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + lifetime * 1000);
    await repo.insertSession(sql, { id, userId, clientType, expiresAt, deviceHash: deviceId ? deviceHash(deviceId) : null, now });
    const token = await new SignJWT({ ctype: clientType })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(userId)
      .setJti(id)
      .setIssuer(config.JWT_ISSUER)
      .setAudience(config.JWT_AUDIENCE)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(key);
    return { id, token, clientType, expiresAt };
  }

  /**
   * From the cache when it can; otherwise token verification and one round trip (session, user,
   * token and device blocklists). `deviceId` is the request's X-Device-Id, checked besides the
   * device the session signed in from; a cached answer is only reused for the same device id.
   */
  async function authenticate(token: string, deviceId?: string): Promise<Principal> {
    const tokenHash = sha256Hex(token);
    const device = deviceId ? deviceHash(deviceId) : null;
    const cached = deps.cache?.get(tokenHash, device);
    if (cached) {
      if (cached.expiresAt.getTime() <= clock().getTime()) {
        deps.cache!.evictToken(tokenHash);
        throw new AppError('AUTH_SESSION_EXPIRED');
      }
      return { ...cached, token };
    }
    // Marked before the read: a change handled while we read voids the store (see session-cache.ts).
    const readSince = deps.cache?.mark() ?? 0;
    const principal = await verify(token, tokenHash, device);
    const { sessionId, clientType, expiresAt, user } = principal;
    deps.cache?.set(tokenHash, { sessionId, clientType, expiresAt, user }, readSince, device);
    return principal;
  }

  async function verify(token: string, tokenHash: string, device: string | null): Promise<Principal> {
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        requiredClaims: ['jti', 'sub', 'exp'],
        currentDate: clock(),
      }));
    } catch (err) {
      throw new AppError(err instanceof joseErrors.JWTExpired ? 'AUTH_SESSION_EXPIRED' : 'AUTH_REQUIRED');
    }
    const found = await repo.sessionCheck(deps.db, { sessionId: claims.jti!, tokenHash, userId: claims.sub!, deviceHash: device });
    if (!found) throw new AppError('AUTH_REQUIRED');
    const { session, user } = found;
    // Blocklisting and deactivation also revoke the sessions; they are named first so the holder learns why.
    if (user.blocklistedAt || session.deviceBlocked) throw new AppError('AUTH_BLOCKLISTED');
    if (!user.isActive) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
    if (session.revokedAt || session.blocked) throw new AppError('AUTH_REQUIRED');
    if (session.expiresAt.getTime() <= clock().getTime()) throw new AppError('AUTH_SESSION_EXPIRED');
    return { sessionId: claims.jti!, clientType: session.clientType, expiresAt: session.expiresAt, token, user };
  }

  /** Ends one session; a mobile token is also blocklisted for its remaining lifetime. */
  async function logout(principal: Principal): Promise<void> {
    deps.cache?.evictToken(sha256Hex(principal.token));
    await deps.db.transaction(async (tx) => {
      await repo.revokeSession(tx, principal.sessionId, clock());
      if (principal.clientType === 'mobile') {
        await repo.blocklistToken(tx, { hash: sha256Hex(principal.token), expiresAt: principal.expiresAt, now: clock() });
      }
    });
  }

  /** Every live session of a user ends now (deactivation does it by trigger). */
  async function revokeAllForUser(userId: string): Promise<number> {
    return repo.revokeLiveSessions(deps.db, userId, clock());
  }

  return { issue, authenticate, logout, revokeAllForUser };
}

export type SessionService = ReturnType<typeof createSessionService>;
