import { createSecretKey, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { Config } from '../config';
import type { ClientType, UserRow } from '../entities';
import { AppError } from '../http/errors';
import { sha256Hex } from '../lib/crypto';
import { deviceHasher } from './devices';
import type { SessionCache } from './session-cache';

export type SessionConfig = Pick<
  Config,
  'JWT_SECRET' | 'JWT_ISSUER' | 'JWT_AUDIENCE' | 'WEB_SESSION_SECONDS' | 'MOBILE_SESSION_SECONDS' | 'DATA_HASH_KEY'
>;

export interface SessionDeps {
  orm: MikroORM;
  pool: Pool;
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

/** The caller's user row as the session check reads it: its identifiers, never its claims or their proof state. */
export type PrincipalUser = Omit<
  UserRow,
  'pendingPhoneEncrypted' | 'pendingPhoneHash' | 'pendingEmailEncrypted' | 'pendingEmailHash' | 'phoneProven' | 'emailProven'
>;

/** What an authenticated request knows about its caller. */
export interface Principal {
  sessionId: string;
  clientType: ClientType;
  expiresAt: Date;
  token: string;
  user: PrincipalUser;
}

const ALGORITHM = 'HS256';

/** One row of the authenticate-session query: the session's state and its user's columns. */
interface AuthenticateRow {
  client_type: ClientType;
  expires_at: Date;
  revoked_at: Date | null;
  blocked: boolean;
  device_blocked: boolean;
  id: string;
  phone_encrypted: string | null;
  phone_hash: string | null;
  email_encrypted: string | null;
  email_hash: string | null;
  name: string;
  app_role: UserRow['appRole'];
  identity_type: UserRow['identityType'];
  is_active: boolean;
  blocklisted_at: Date | null;
  verified_at: Date | null;
  managed_areas: string[] | null;
  managed_areas_write: string[] | null;
  created_at: Date;
  updated_at: Date;
}

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
  async function issue(userId: string, clientType: ClientType, deviceId?: string): Promise<IssuedSession> {
    const id = randomUUID();
    const now = clock();
    const lifetime = clientType === 'web' ? config.WEB_SESSION_SECONDS : config.MOBILE_SESSION_SECONDS;
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + lifetime * 1000);
    await deps.orm.em
      .fork()
      .execute('insert into sessions (id, user_id, client_type, expires_at, device_hash, created_at) values (?, ?, ?, ?, ?, ?)', [
        id,
        userId,
        clientType,
        expiresAt,
        deviceId ? deviceHash(deviceId) : null,
        now,
      ]);
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
    const { rows } = await deps.pool.query<AuthenticateRow>({
      name: 'authenticate-session',
      text: `select s.client_type, s.expires_at, s.revoked_at,
                    exists (select 1 from token_blocklist b where b.token_hash = $2) as blocked,
                    exists (select 1 from device_blocklist d where d.device_hash in (s.device_hash, $4)) as device_blocked,
                    u.id, u.phone_encrypted, u.phone_hash, u.email_encrypted, u.email_hash, u.name, u.app_role,
                    u.identity_type, u.is_active, u.blocklisted_at, u.verified_at, u.managed_areas, u.managed_areas_write,
                    u.created_at, u.updated_at
               from sessions s join users u on u.id = s.user_id
              where s.id = $1 and s.user_id = $3`,
      values: [claims.jti, tokenHash, claims.sub, device],
    });
    const row = rows[0];
    if (!row) throw new AppError('AUTH_REQUIRED');
    // Blocklisting and deactivation also revoke the sessions; they are named first so the holder learns why.
    if (row.blocklisted_at || row.device_blocked) throw new AppError('AUTH_BLOCKLISTED');
    if (!row.is_active) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
    if (row.revoked_at || row.blocked) throw new AppError('AUTH_REQUIRED');
    if (new Date(row.expires_at).getTime() <= clock().getTime()) throw new AppError('AUTH_SESSION_EXPIRED');
    return {
      sessionId: claims.jti!,
      clientType: row.client_type,
      expiresAt: new Date(row.expires_at),
      token,
      user: {
        id: row.id,
        phoneEncrypted: row.phone_encrypted,
        phoneHash: row.phone_hash,
        emailEncrypted: row.email_encrypted,
        emailHash: row.email_hash,
        name: row.name,
        appRole: row.app_role,
        identityType: row.identity_type,
        isActive: row.is_active,
        blocklistedAt: row.blocklisted_at,
        verifiedAt: row.verified_at,
        managedAreas: row.managed_areas,
        managedAreasWrite: row.managed_areas_write,
        createdAt: new Date(row.created_at),
        updatedAt: new Date(row.updated_at),
      },
    };
  }

  /** Ends one session; a mobile token is also blocklisted for its remaining lifetime. */
  async function logout(principal: Principal): Promise<void> {
    deps.cache?.evictToken(sha256Hex(principal.token));
    await deps.orm.em.fork().transactional(async (em) => {
      await em.execute('update sessions set revoked_at = ? where id = ? and revoked_at is null', [clock(), principal.sessionId]);
      if (principal.clientType === 'mobile') {
        await em.execute('insert into token_blocklist (token_hash, expires_at, created_at) values (?, ?, ?) on conflict do nothing', [
          sha256Hex(principal.token),
          principal.expiresAt,
          clock(),
        ]);
      }
    });
  }

  /** Every live session of a user ends now (deactivation does it by trigger). */
  async function revokeAllForUser(userId: string): Promise<number> {
    return revokeLiveSessions(deps.orm.em.fork(), userId, clock());
  }

  return { issue, authenticate, logout, revokeAllForUser };
}

export type SessionService = ReturnType<typeof createSessionService>;

/**
 * Ends every live session of a user now, in `em`'s transaction when it runs in one, and answers how
 * many ended; repeating it ends nothing more. The sessions trigger NOTIFYs `auth_changed`, so cached
 * sessions are dropped at once. Used by revokeAllForUser and by company suspension (activities/companies.ts).
 */
export async function revokeLiveSessions(em: EntityManager, userId: string, now: Date): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    'update sessions set revoked_at = ? where user_id = ? and revoked_at is null and expires_at > ? returning id',
    [now, userId, now],
  );
  return rows.length;
}
