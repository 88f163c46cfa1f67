import type { AppRole, ClientType, OtpPurpose, UserRow } from '../entities';
import type { PrincipalUser } from '../http/principal';
import { query, type Sql } from '../db/sql';

/**
 * The SQL of accounts: users and their identifiers, consents, one-time codes and their request
 * counts, sessions and the token and device blocklists. Services call these with the pool or with
 * the transaction they opened (docs/architecture.md, "Data access").
 */

export type IdentifierKind = 'phone' | 'email';

// --- Users ----------------------------------------------------------------------------------------

/** Every column of a user, named as the entity names them. */
const USER_COLUMNS = `id, phone_encrypted as "phoneEncrypted", phone_hash as "phoneHash", phone_proven as "phoneProven",
  email_encrypted as "emailEncrypted", email_hash as "emailHash", email_proven as "emailProven",
  pending_phone_encrypted as "pendingPhoneEncrypted", pending_phone_hash as "pendingPhoneHash",
  pending_email_encrypted as "pendingEmailEncrypted", pending_email_hash as "pendingEmailHash",
  name, app_role as "appRole", identity_type as "identityType", is_active as "isActive", blocklisted_at as "blocklistedAt",
  verified_at as "verifiedAt", managed_areas as "managedAreas", managed_areas_write as "managedAreasWrite",
  created_at as "createdAt", updated_at as "updatedAt"`;

const FIND_USER = query('auth.find-user', `select ${USER_COLUMNS} from users where id = $1`);
const LOCK_USER = query('auth.lock-user', `select ${USER_COLUMNS} from users where id = $1 for update`);

export async function findUser(sql: Sql, id: string, opts: { lock?: boolean } = {}): Promise<UserRow | undefined> {
  return sql.one<UserRow>(opts.lock ? LOCK_USER : FIND_USER, [id]);
}

/** The account holding any of the identifiers (by keyed hash), proven or not. */
export async function findUserByHashes(sql: Sql, hashes: { phone?: string; email?: string }): Promise<UserRow | undefined> {
  return sql.one<UserRow>(
    query('auth.find-user-by-hashes', `select ${USER_COLUMNS} from users where phone_hash = $1 or email_hash = $2 limit 1`),
    [hashes.phone ?? null, hashes.email ?? null],
  );
}

/** A new self-registered account without identifiers yet (nameIdentifier puts them on). */
export async function insertRegistrant(sql: Sql, user: { id: string; name: string; now: Date }): Promise<void> {
  await sql.exec(query('auth.insert-registrant', 'insert into users (id, name, created_at, updated_at) values ($1, $2, $3, $3)'), [
    user.id,
    user.name,
    user.now,
  ]);
}

export async function updateName(sql: Sql, id: string, name: string, now: Date): Promise<void> {
  await sql.exec(query('auth.update-name', 'update users set name = $2, updated_at = $3 where id = $1'), [id, name, now]);
}

export async function touchUser(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.exec(query('auth.touch-user', 'update users set updated_at = $2 where id = $1'), [id, now]);
}

/** A user written whole, signed in before (`npm run create-user`): identifiers proven, role and areas as given. */
export async function insertVerifiedUser(
  sql: Sql,
  user: Pick<
    UserRow,
    | 'name'
    | 'appRole'
    | 'identityType'
    | 'phoneEncrypted'
    | 'phoneHash'
    | 'emailEncrypted'
    | 'emailHash'
    | 'managedAreas'
    | 'managedAreasWrite'
  > & { now: Date },
): Promise<{ id: string }> {
  const row = await sql.one<{ id: string }>(
    query(
      'auth.insert-verified-user',
      `insert into users (name, app_role, identity_type, phone_encrypted, phone_hash, email_encrypted, email_hash,
                          managed_areas, managed_areas_write, verified_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $10) returning id`,
    ),
    [
      user.name,
      user.appRole,
      user.identityType,
      user.phoneEncrypted,
      user.phoneHash,
      user.emailEncrypted,
      user.emailHash,
      user.managedAreas,
      user.managedAreasWrite,
      user.now,
    ],
  );
  return row!;
}

/** Registration completed: the first sign-in (verify-otp or an invitation link). Later sign-ins keep the first instant. */
export async function markVerified(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.exec(query('auth.mark-verified', 'update users set verified_at = coalesce(verified_at, $2) where id = $1'), [id, now]);
}

const STAFF_ACCESS = query(
  'auth.staff-access',
  `select app_role as "appRole", managed_areas as "managedAreas", managed_areas_write as "managedAreasWrite"
     from users where id = $1 and is_active`,
);

/** An active user's role and portal areas, as the staff guard reads them on every request (src/http/guards.ts). */
export async function findStaffAccess(
  sql: Sql,
  userId: string,
): Promise<{ appRole: AppRole; managedAreas: string[] | null; managedAreasWrite: string[] | null } | undefined> {
  return sql.one(STAFF_ACCESS, [userId]);
}

// --- Identifiers (the rules are identifiers.ts's) -------------------------------------------------

/** Serializes every change of who holds one identifier, for the rest of the transaction. */
export async function lockIdentifier(sql: Sql, hash: string): Promise<void> {
  await sql.exec(query('auth.lock-identifier', 'select pg_advisory_xact_lock(hashtextextended($1, 0))'), [hash]);
}

/** The same lock, only when it is free at once. */
export async function tryLockIdentifier(sql: Sql, hash: string): Promise<boolean> {
  const row = await sql.one<{ taken: boolean }>(
    query('auth.try-lock-identifier', 'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as taken'),
    [hash],
  );
  return row?.taken ?? false;
}

/** An account as a proof or a naming sees it: does it hold the identifier (proven?), claim it, has it ever signed in. */
export interface Contender {
  id: string;
  holds: boolean;
  proven: boolean;
  claims: boolean;
  used: boolean;
}

// Column names vary by kind only; each kind's text is its own named statement.
const byKind = <T>(make: (kind: IdentifierKind) => T): Record<IdentifierKind, T> => ({ phone: make('phone'), email: make('email') });

const CONTENDERS = byKind((kind) =>
  query(
    `auth.lock-contenders-${kind}`,
    `select id, ${kind}_hash is not distinct from $1 as holds, ${kind}_proven as proven,
            pending_${kind}_hash is not distinct from $1 as claims, verified_at is not null as used
       from users where id = $2 or ${kind}_hash = $1 or pending_${kind}_hash = $1
      order by id for update`,
  ),
);

/** Locks the account and every account holding or claiming the identifier, in id order, and reads them. */
export async function lockContenders(sql: Sql, kind: IdentifierKind, hash: string, userId: string): Promise<Contender[]> {
  return sql.rows<Contender>(CONTENDERS[kind], [hash, userId]);
}

const HOLDER = byKind((kind) => query(`auth.holder-${kind}`, `select id, ${kind}_proven as proven from users where ${kind}_hash = $1`));

/** The holder of an identifier, proven or not. */
export async function findHolder(sql: Sql, kind: IdentifierKind, hash: string): Promise<{ id: string; proven: boolean } | undefined> {
  return sql.one(HOLDER[kind], [hash]);
}

const HOLD = byKind((kind) =>
  query(
    `auth.hold-${kind}`,
    `update users set ${kind}_hash = $2, ${kind}_encrypted = $3, ${kind}_proven = $4,
            pending_${kind}_hash = null, pending_${kind}_encrypted = null, updated_at = now()
      where id = $1`,
  ),
);

/** The account holds the identifier (replacing its own of that kind), proven or not; its claim of that kind is settled. */
export async function holdIdentifier(
  sql: Sql,
  userId: string,
  kind: IdentifierKind,
  value: { hash: string; encrypted: string; proven: boolean },
): Promise<void> {
  await sql.exec(HOLD[kind], [userId, value.hash, value.encrypted, value.proven]);
}

const CLAIM = byKind((kind) =>
  query(
    `auth.claim-${kind}`,
    `update users set pending_${kind}_hash = $2, pending_${kind}_encrypted = $3, updated_at = now() where id = $1`,
  ),
);

export async function claimIdentifier(
  sql: Sql,
  userId: string,
  kind: IdentifierKind,
  value: { hash: string; encrypted: string },
): Promise<void> {
  await sql.exec(CLAIM[kind], [userId, value.hash, value.encrypted]);
}

const PROVE = byKind((kind) => query(`auth.prove-${kind}`, `update users set ${kind}_proven = true, updated_at = now() where id = $1`));

export async function markProven(sql: Sql, userId: string, kind: IdentifierKind): Promise<void> {
  await sql.exec(PROVE[kind], [userId]);
}

const DROP_HELD = byKind((kind) =>
  query(
    `auth.drop-held-${kind}`,
    `update users set ${kind}_hash = null, ${kind}_encrypted = null, ${kind}_proven = true, updated_at = now() where id = $1`,
  ),
);
const DROP_CLAIM = byKind((kind) =>
  query(
    `auth.drop-claim-${kind}`,
    `update users set pending_${kind}_hash = null, pending_${kind}_encrypted = null, updated_at = now() where id = $1`,
  ),
);

/** The account no longer holds (or claims) an identifier of that kind. */
export async function dropIdentifier(sql: Sql, userId: string, kind: IdentifierKind, what: 'held' | 'claim'): Promise<void> {
  await sql.exec((what === 'held' ? DROP_HELD : DROP_CLAIM)[kind], [userId]);
}

/** Removes an account that never signed in and has no orders (an abandoned registration); false when it does not qualify. */
export async function deleteAbandoned(sql: Sql, userId: string): Promise<boolean> {
  const deleted = await sql.exec(
    query(
      'auth.delete-abandoned',
      `delete from users u where u.id = $1 and u.verified_at is null and not exists (select 1 from orders o where o.user_id = u.id)`,
    ),
    [userId],
  );
  return deleted > 0;
}

const CLAIM_HASH = byKind((kind) => query(`auth.claim-hash-${kind}`, `select pending_${kind}_hash as hash from users where id = $1`));

export async function claimedHash(sql: Sql, userId: string, kind: IdentifierKind): Promise<string | null> {
  return (await sql.one<{ hash: string | null }>(CLAIM_HASH[kind], [userId]))?.hash ?? null;
}

const TAKE_FREED_CLAIM = byKind((kind) =>
  query(
    `auth.take-freed-claim-${kind}`,
    `update users u set ${kind}_hash = u.pending_${kind}_hash, ${kind}_encrypted = u.pending_${kind}_encrypted, ${kind}_proven = false,
            pending_${kind}_hash = null, pending_${kind}_encrypted = null
      where u.id = $1 and u.pending_${kind}_hash is not null and u.${kind}_hash is null
        and not exists (select 1 from users o where o.${kind}_hash = u.pending_${kind}_hash)`,
  ),
);

/** The account's claim becomes its identifier (unproven) when nobody holds it. */
export async function takeFreedClaim(sql: Sql, userId: string, kind: IdentifierKind): Promise<void> {
  await sql.exec(TAKE_FREED_CLAIM[kind], [userId]);
}

/** PUT /auth/me { email: null }: the e-mail and any claim on one go. */
export async function removeEmail(sql: Sql, userId: string, now: Date): Promise<void> {
  await sql.exec(
    query(
      'auth.remove-email',
      `update users set email_hash = null, email_encrypted = null, email_proven = true,
              pending_email_hash = null, pending_email_encrypted = null, updated_at = $2 where id = $1`,
    ),
    [userId, now],
  );
}

// --- Consents -------------------------------------------------------------------------------------

export async function insertConsents(
  sql: Sql,
  userId: string,
  consents: readonly { id: string; type: string; version: string }[],
  now: Date,
): Promise<void> {
  await sql.exec(
    query(
      'auth.insert-consents',
      `insert into consents (id, user_id, type, version, recorded_at)
       select c.id, $1, c.type, c.version, $2 from unnest($3::uuid[], $4::text[], $5::text[]) as c(id, type, version)`,
    ),
    [userId, now, consents.map((c) => c.id), consents.map((c) => c.type), consents.map((c) => c.version)],
  );
}

export async function consentTypes(sql: Sql, userId: string): Promise<string[]> {
  const rows = await sql.rows<{ type: string }>(query('auth.consent-types', 'select distinct type from consents where user_id = $1'), [
    userId,
  ]);
  return rows.map((r) => r.type);
}

// --- One-time codes -------------------------------------------------------------------------------

/** Requests counted for an identifier since the window opened. */
export async function countOtpRequests(sql: Sql, hash: string, since: Date): Promise<number> {
  const row = await sql.one<{ n: number }>(
    query('auth.count-otp-requests', 'select count(*)::int as n from otp_requests where identifier_hash = $1 and created_at > $2'),
    [hash, since],
  );
  return row?.n ?? 0;
}

export async function insertOtpRequest(sql: Sql, request: { id: string; hash: string; now: Date }): Promise<void> {
  await sql.exec(query('auth.insert-otp-request', 'insert into otp_requests (id, identifier_hash, created_at) values ($1, $2, $3)'), [
    request.id,
    request.hash,
    request.now,
  ]);
}

const SUPERSEDE = byKind((kind) => ({
  family: query(
    `auth.supersede-sign-in-${kind}`,
    `update otp_challenges set consumed_at = $1
      where consumed_at is null and purpose in ('register', 'login') and ${kind}_hash = $2`,
  ),
  ofUser: query(
    `auth.supersede-of-user-${kind}`,
    `update otp_challenges set consumed_at = $1
      where consumed_at is null and purpose = $3 and ${kind}_hash = $2 and user_id = $4`,
  ),
}));

/**
 * Spends the open codes a new one replaces: sign-in codes (register, login) of the identifier, or
 * the user's own open codes of a user-bound purpose (phone and e-mail change).
 */
export async function supersedeChallenges(
  sql: Sql,
  target: { kind: IdentifierKind; hash: string; purpose: OtpPurpose; userBound: boolean; userId: string },
  now: Date,
): Promise<void> {
  const statements = SUPERSEDE[target.kind];
  if (target.userBound) await sql.exec(statements.ofUser, [now, target.hash, target.purpose, target.userId]);
  else await sql.exec(statements.family, [now, target.hash]);
}

export interface NewChallenge {
  id: string;
  purpose: OtpPurpose;
  userId: string;
  kind: IdentifierKind;
  hash: string;
  codeHash: string;
  expiresAt: Date;
  now: Date;
}

export async function insertChallenge(sql: Sql, c: NewChallenge): Promise<void> {
  await sql.exec(
    query(
      'auth.insert-challenge',
      `insert into otp_challenges (id, purpose, user_id, phone_hash, email_hash, code_hash, attempts, expires_at, created_at)
       values ($1, $2, $3, $4, $5, $6, 0, $7, $8)`,
    ),
    [c.id, c.purpose, c.userId, c.kind === 'phone' ? c.hash : null, c.kind === 'email' ? c.hash : null, c.codeHash, c.expiresAt, c.now],
  );
}

export interface OpenChallenge {
  id: string;
  userId: string;
  expiresAt: Date;
}

const NEWEST_OPEN = byKind((kind) => ({
  any: query(
    `auth.newest-open-${kind}`,
    `select id, user_id as "userId", expires_at as "expiresAt" from otp_challenges
      where ${kind}_hash = $1 and consumed_at is null and purpose = any($2::text[])
      order by created_at desc, id desc limit 1`,
  ),
  ofUser: query(
    `auth.newest-open-of-user-${kind}`,
    `select id, user_id as "userId", expires_at as "expiresAt" from otp_challenges
      where ${kind}_hash = $1 and consumed_at is null and purpose = any($2::text[]) and user_id = $3
      order by created_at desc, id desc limit 1`,
  ),
}));

/** The newest open challenge of an identifier among the purposes, optionally bound to one user. */
export async function newestOpenChallenge(
  sql: Sql,
  where: { kind: IdentifierKind; hash: string; purposes: readonly OtpPurpose[]; userId?: string },
): Promise<OpenChallenge | undefined> {
  const statements = NEWEST_OPEN[where.kind];
  return where.userId
    ? sql.one<OpenChallenge>(statements.ofUser, [where.hash, where.purposes, where.userId])
    : sql.one<OpenChallenge>(statements.any, [where.hash, where.purposes]);
}

/** Spends one attempt while any are left; answers the stored code hash, or undefined when none was left (or the row is gone). */
export async function spendAttempt(
  sql: Sql,
  id: string,
  maxAttempts: number,
): Promise<{ codeHash: string; consumed: boolean } | undefined> {
  return sql.one(
    query(
      'auth.spend-attempt',
      `update otp_challenges set attempts = attempts + 1 where id = $1 and attempts < $2
       returning code_hash as "codeHash", consumed_at is not null as consumed`,
    ),
    [id, maxAttempts],
  );
}

/** Consumes the challenge unless a parallel request did first; true when this call consumed it. */
export async function consumeChallenge(sql: Sql, id: string, now: Date): Promise<boolean> {
  const consumed = await sql.exec(
    query('auth.consume-challenge', 'update otp_challenges set consumed_at = $2 where id = $1 and consumed_at is null'),
    [id, now],
  );
  return consumed > 0;
}

export async function challengeExists(sql: Sql, id: string): Promise<boolean> {
  return (await sql.one(query('auth.challenge-exists', 'select 1 from otp_challenges where id = $1'), [id])) !== undefined;
}

// --- Sessions and blocklists ----------------------------------------------------------------------

export async function insertSession(
  sql: Sql,
  s: { id: string; userId: string; clientType: ClientType; expiresAt: Date; deviceHash: string | null; now: Date },
): Promise<void> {
  await sql.exec(
    query(
      'auth.insert-session',
      'insert into sessions (id, user_id, client_type, expires_at, device_hash, created_at) values ($1, $2, $3, $4, $5, $6)',
    ),
    [s.id, s.userId, s.clientType, s.expiresAt, s.deviceHash, s.now],
  );
}

/** What the session check reads: the session's state, and its user's columns (never claims or proof state). */
export interface SessionCheck {
  session: { clientType: ClientType; expiresAt: Date; revokedAt: Date | null; blocked: boolean; deviceBlocked: boolean };
  user: PrincipalUser;
}

type SessionCheckRow = SessionCheck['session'] & SessionCheck['user'];

const SESSION_CHECK = query(
  'auth.session-check',
  `select s.client_type as "clientType", s.expires_at as "expiresAt", s.revoked_at as "revokedAt",
          exists (select 1 from token_blocklist b where b.token_hash = $2) as blocked,
          exists (select 1 from device_blocklist d where d.device_hash in (s.device_hash, $4)) as "deviceBlocked",
          u.id, u.phone_encrypted as "phoneEncrypted", u.phone_hash as "phoneHash", u.email_encrypted as "emailEncrypted",
          u.email_hash as "emailHash", u.name, u.app_role as "appRole", u.identity_type as "identityType",
          u.is_active as "isActive", u.blocklisted_at as "blocklistedAt", u.verified_at as "verifiedAt",
          u.managed_areas as "managedAreas", u.managed_areas_write as "managedAreasWrite",
          u.created_at as "createdAt", u.updated_at as "updatedAt"
     from sessions s join users u on u.id = s.user_id
    where s.id = $1 and s.user_id = $3 and u.deletion_requested_at is null`,
);

/**
 * The session check in one round trip: session, user, token and device blocklists. A deleted
 * account's sessions are not found (AUTH_REQUIRED, as the spec has them end), where an account staff
 * deactivated is found and named (AUTH_ACCOUNT_DEACTIVATED).
 */
export async function sessionCheck(
  sql: Sql,
  key: { sessionId: string; tokenHash: string; userId: string; deviceHash: string | null },
): Promise<SessionCheck | undefined> {
  const row = await sql.one<SessionCheckRow>(SESSION_CHECK, [key.sessionId, key.tokenHash, key.userId, key.deviceHash]);
  if (!row) return undefined;
  const { clientType, expiresAt, revokedAt, blocked, deviceBlocked, ...user } = row;
  return { session: { clientType, expiresAt, revokedAt, blocked, deviceBlocked }, user };
}

export async function revokeSession(sql: Sql, sessionId: string, now: Date): Promise<void> {
  await sql.exec(query('auth.revoke-session', 'update sessions set revoked_at = $2 where id = $1 and revoked_at is null'), [
    sessionId,
    now,
  ]);
}

export async function blocklistToken(sql: Sql, token: { hash: string; expiresAt: Date; now: Date }): Promise<void> {
  await sql.exec(
    query(
      'auth.blocklist-token',
      'insert into token_blocklist (token_hash, expires_at, created_at) values ($1, $2, $3) on conflict do nothing',
    ),
    [token.hash, token.expiresAt, token.now],
  );
}

/**
 * Ends every live session of a user now and answers how many ended; repeating it ends nothing more.
 * The sessions trigger NOTIFYs `auth_changed`, so cached sessions are dropped at once.
 */
export async function revokeLiveSessions(sql: Sql, userId: string, now: Date): Promise<number> {
  return sql.exec(
    query('auth.revoke-live-sessions', 'update sessions set revoked_at = $2 where user_id = $1 and revoked_at is null and expires_at > $2'),
    [userId, now],
  );
}

export async function isDeviceBlocklisted(sql: Sql, deviceHash: string): Promise<boolean> {
  return (
    (await sql.one(query('auth.device-blocklisted', 'select 1 from device_blocklist where device_hash = $1'), [deviceHash])) !== undefined
  );
}
