import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { REQUIRED_CONSENT_TYPES, User, type ClientType, type RequiredConsentType, type UserRow } from '../entities';
import { AppError, validationError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { IdentifierTaken, proveIdentifier } from './identifiers';
import type { DeviceCheck } from './devices';
import type { EmailChangeService } from './email-change';
import type { IssuedCode, OtpService } from './otp';
import type { IssuedSession, Principal, PrincipalUser, SessionService } from './sessions';
import { findUserByIdentifier, profileView, sessionView, signInView, type Identifiers } from './users';

export interface AccountDeps {
  orm: MikroORM;
  cipher: PersonalDataCipher;
  clock: () => Date;
  otp: OtpService;
  sessions: SessionService;
  emailChange: Pick<EmailChangeService, 'request'>;
  /** Sign-in from a blocklisted device (X-Device-Id) is refused before anything else. */
  assertDeviceAllowed: DeviceCheck;
}

export interface ConsentInput {
  type: string;
  version: string;
}

/** Sign-up, sign-in by OTP, consents and the profile. */
export function createAccountService(deps: AccountDeps) {
  const { orm, cipher, clock, otp, sessions, emailChange, assertDeviceAllowed } = deps;

  async function register(input: Identifiers & { name: string; consents: ConsentInput[] }, deviceId?: string): Promise<{ userId: string }> {
    await assertDeviceAllowed(deviceId);
    const userId = randomUUID();
    const issued = await orm.em.fork().transactional(async (em) => {
      // Only proven identifiers are taken; an unproven claim of another account never blocks.
      if (input.phone && (await findUserByIdentifier(em, cipher, { phone: input.phone }))) throw new AppError('AUTH_PHONE_EXISTS');
      if (input.email && (await findUserByIdentifier(em, cipher, { email: input.email }))) throw new AppError('AUTH_EMAIL_EXISTS');
      await otp.countRequest(em, [input.phone, input.email]);
      const now = clock();
      // Every identifier starts as a claim; its own code proves it (verify-otp).
      em.create(User, {
        id: userId,
        name: input.name,
        pendingPhoneEncrypted: input.phone ? cipher.encrypt(input.phone) : null,
        pendingPhoneHash: input.phone ? cipher.lookupHash(input.phone) : null,
        pendingEmailEncrypted: input.email ? cipher.encrypt(input.email) : null,
        pendingEmailHash: input.email ? cipher.lookupHash(input.email) : null,
        createdAt: now,
        updatedAt: now,
      });
      await em.flush();
      await recordConsents(em, userId, input.consents);
      return otp.createChallenge(em, { purpose: 'register', userId, phone: input.phone, email: input.email });
    });
    await otp.send(issued);
    return { userId };
  }

  /**
   * Unknown identifiers answer AUTH_INVALID_OTP like a wrong code, after counting the request like any other.
   * Only proven identifiers are known here: an unproven claim never leads to a sign-in.
   */
  async function login(input: Identifiers, deviceId?: string): Promise<void> {
    await assertDeviceAllowed(deviceId);
    const issued = await orm.em.fork().transactional(async (em) => {
      await otp.countRequest(em, [input.phone, input.email]);
      const user = await findUserByIdentifier(em, cipher, input);
      if (!user || !matchesAll(user, input)) return null;
      return otp.createChallenge(em, { purpose: 'login', userId: user.id, phone: input.phone, email: input.email });
    });
    if (!issued) throw new AppError('AUTH_INVALID_OTP');
    await otp.send(issued);
  }

  /** The code proves the one identifier it was sent to; the session is for the account that holds or claimed it. */
  async function verifyOtp(input: Identifiers & { otp: string }, clientType: ClientType, deviceId?: string) {
    await assertDeviceAllowed(deviceId);
    const proof = await otp.verify(orm.em.fork(), { purposes: ['register', 'login'], phone: input.phone, email: input.email }, input.otp);
    const user = await orm.em.fork().transactional(async (em) => {
      const row = await em.findOne(User, { id: proof.userId });
      if (!row) throw new AppError('AUTH_INVALID_OTP');
      if (row.blocklistedAt) throw new AppError('AUTH_BLOCKLISTED');
      if (!row.isActive) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
      const proven = await proveIdentifier(em, cipher, proof, 'sign-in').catch((err: unknown) => {
        // Someone else proved it first: this code no longer reaches an account.
        throw err instanceof IdentifierTaken ? new AppError('AUTH_INVALID_OTP') : err;
      });
      proven.verifiedAt ??= clock();
      return proven;
    });
    const session = await sessions.issue(user.id, clientType, deviceId);
    return { user: signInView(user, cipher), session };
  }

  async function recordConsentsFor(userId: string, consents: ConsentInput[]): Promise<void> {
    await orm.em.fork().transactional((em) => recordConsents(em, userId, consents));
  }

  async function recordConsents(em: EntityManager, userId: string, consents: ConsentInput[]): Promise<void> {
    const now = clock();
    for (const consent of consents) {
      await em.execute('insert into consents (id, user_id, type, version, recorded_at) values (?, ?, ?, ?, ?)', [
        randomUUID(),
        userId,
        consent.type,
        consent.version,
        now,
      ]);
    }
  }

  /** Required consent types the user has not recorded yet. */
  async function missingConsents(userId: string): Promise<RequiredConsentType[]> {
    const rows = await orm.em.fork().execute<{ type: string }[]>('select distinct type from consents where user_id = ?', [userId]);
    const recorded = new Set(rows.map((r) => r.type));
    return REQUIRED_CONSENT_TYPES.filter((t) => !recorded.has(t));
  }

  // A cached session hands the same user row to every request until a change evicts it, so its
  // view (two decryptions) is computed once per row object, not once per GET /auth/session.
  const views = new WeakMap<PrincipalUser, ReturnType<typeof sessionView>>();
  function session(principal: Principal) {
    let user = views.get(principal.user);
    if (!user) views.set(principal.user, (user = sessionView(principal.user, cipher)));
    return {
      session: { clientType: principal.clientType, expiresAt: principal.expiresAt.toISOString() },
      user,
    };
  }

  async function me(userId: string) {
    const user = await orm.em.fork().findOneOrFail(User, { id: userId });
    return profileView(user, cipher);
  }

  /**
   * Only name and e-mail change here. A new e-mail is not taken on the caller's word: a code goes
   * to it and POST /auth/verify-change-email makes it the e-mail (email-change.ts); until then the
   * account keeps its e-mail. Null removes the e-mail (and any unproven claim) unless it is the
   * last proven credential.
   */
  async function updateMe(userId: string, input: { name?: string; email?: string | null }) {
    const { user, codes } = await orm.em.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(User, { id: userId });
      let issued: IssuedCode[] = [];
      if (input.name !== undefined) row.name = input.name;
      if (input.email === null) {
        if (!row.phoneHash) throw validationError([{ path: 'email', message: 'An account needs a phone or an e-mail' }]);
        row.emailEncrypted = row.emailHash = null;
        row.pendingEmailEncrypted = row.pendingEmailHash = null;
      } else if (input.email !== undefined) {
        issued = await emailChange.request(em, userId, input.email);
      }
      row.updatedAt = clock();
      return { user: row, codes: issued };
    });
    await otp.send(codes);
    return profileView(user, cipher);
  }

  return { register, login, verifyOtp, recordConsents: recordConsentsFor, missingConsents, session, me, updateMe };

  function matchesAll(user: UserRow, ids: Identifiers): boolean {
    return (
      (!ids.phone || user.phoneHash === cipher.lookupHash(ids.phone)) && (!ids.email || user.emailHash === cipher.lookupHash(ids.email))
    );
  }
}

export type AccountService = ReturnType<typeof createAccountService>;
export type { IssuedSession };
