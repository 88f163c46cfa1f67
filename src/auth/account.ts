import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../db/sql';
import { REQUIRED_CONSENT_TYPES, type ClientType, type RequiredConsentType, type UserRow } from '../entities';
import { AppError, validationError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import type { Logger } from 'pino';
import type { MessageSender, OutgoingMessage } from '../providers/messages';
import { findHolder, IdentifierTaken, nameIdentifier, proveIdentifier, type IdentifierKind } from './identifiers';
import { identifierProvenNotices, sendNotices } from './notices';
import type { DeviceCheck } from './devices';
import type { EmailChangeService } from './email-change';
import type { IssuedCode, OtpService } from './otp';
import type { IssuedSession, Principal, PrincipalUser, SessionService } from './sessions';
import * as repo from './repository';
import { profileView, sessionView, signInView, type Identifiers } from './users';

export interface AccountDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  otp: OtpService;
  sessions: SessionService;
  emailChange: Pick<EmailChangeService, 'request'>;
  /** Sign-in from a blocklisted device (X-Device-Id) is refused before anything else. */
  assertDeviceAllowed: DeviceCheck;
  /** Account notices (not codes: those go through `otp`). */
  messages: MessageSender;
  logger: Pick<Logger, 'warn'>;
}

const KINDS: readonly IdentifierKind[] = ['phone', 'email'];
const EXISTS = { phone: 'AUTH_PHONE_EXISTS', email: 'AUTH_EMAIL_EXISTS' } as const;

export interface ConsentInput {
  type: string;
  version: string;
}

/** Sign-up, sign-in by OTP, consents and the profile. */
export function createAccountService(deps: AccountDeps) {
  const { db, cipher, clock, otp, sessions, emailChange, assertDeviceAllowed, messages, logger } = deps;

  async function register(input: Identifiers & { name: string; consents: ConsentInput[] }, deviceId?: string): Promise<{ userId: string }> {
    await assertDeviceAllowed(deviceId);
    const userId = randomUUID();
    const issued = await db.transaction(async (tx) => {
      // A proven identifier belongs to its account; one that nobody proved blocks nobody.
      for (const kind of KINDS) {
        const value = input[kind];
        if (value && (await findHolder(tx, cipher, kind, value))?.proven) throw new AppError(EXISTS[kind]);
      }
      await otp.countRequest(tx, [input.phone, input.email]);
      const now = clock();
      await repo.insertRegistrant(tx, { id: userId, name: input.name, now });
      // Each identifier goes on the account unproven (or as a claim, when another account holds it
      // unproven); its own code proves it (verify-otp).
      for (const kind of KINDS) {
        const value = input[kind];
        if (!value) continue;
        await nameIdentifier(tx, cipher, userId, kind, value).catch((err: unknown) => {
          throw err instanceof IdentifierTaken ? new AppError(EXISTS[kind]) : err;
        });
      }
      await recordConsents(tx, userId, input.consents);
      return otp.createChallenge(tx, { purpose: 'register', userId, phone: input.phone, email: input.email });
    });
    await otp.send(issued);
    return { userId };
  }

  /**
   * Unknown identifiers answer AUTH_INVALID_OTP like a wrong code, after counting the request like any other.
   * Every identifier an account holds signs it in, proven or not (the code proves it); a claim does not.
   */
  async function login(input: Identifiers, deviceId?: string): Promise<void> {
    await assertDeviceAllowed(deviceId);
    const issued = await db.transaction(async (tx) => {
      await otp.countRequest(tx, [input.phone, input.email]);
      const user = await repo.findUserByHashes(tx, hashesOf(input));
      if (!user || !matchesAll(user, input)) return null;
      return otp.createChallenge(tx, { purpose: 'login', userId: user.id, phone: input.phone, email: input.email });
    });
    if (!issued) throw new AppError('AUTH_INVALID_OTP');
    await otp.send(issued);
  }

  /**
   * The code proves the one identifier it was sent to; the session is for the account that holds or
   * claimed it. When an identifier the account never proved signs a used account in for the first
   * time, its other, proven channel is told (notices.ts).
   */
  async function verifyOtp(input: Identifiers & { otp: string }, clientType: ClientType, deviceId?: string) {
    await assertDeviceAllowed(deviceId);
    const proof = await otp.verify(db, { purposes: ['register', 'login'], phone: input.phone, email: input.email }, input.otp);
    // The code is consumed, the person signed in and the session written in one transaction: a request
    // that fails in it (Postgres away) changed nothing, and its retry with the same code signs in.
    const { user, notices, session } = await db.transaction(async (tx) => {
      const row = await repo.findUser(tx, proof.userId);
      if (!row) throw new AppError('AUTH_INVALID_OTP');
      if (row.blocklistedAt) throw new AppError('AUTH_BLOCKLISTED');
      if (!row.isActive) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
      const signedInBefore = row.verifiedAt !== null;
      const proven = await proveIdentifier(tx, cipher, proof, 'sign-in').catch((err: unknown) => {
        // Someone else proved it first: this code no longer reaches an account.
        throw err instanceof IdentifierTaken ? new AppError('AUTH_INVALID_OTP') : err;
      });
      // After the accounts' locks (taken in id order by the proof): a parallel proof may remove this challenge's account.
      await otp.consume(tx, proof);
      if (!signedInBefore) await repo.markVerified(tx, proof.userId, clock());
      const told: OutgoingMessage[] = signedInBefore && proven.newlyProven ? identifierProvenNotices(proven.user, proof.kind, cipher) : [];
      const issued = await sessions.issue(proven.user.id, clientType, deviceId, tx);
      return { user: proven.user, notices: told, session: issued };
    });
    await sendNotices(messages, logger, notices);
    return { user: signInView(user, cipher), session };
  }

  async function recordConsentsFor(userId: string, consents: ConsentInput[]): Promise<void> {
    await recordConsents(db, userId, consents);
  }

  async function recordConsents(sql: Sql, userId: string, consents: ConsentInput[]): Promise<void> {
    const rows = consents.map((c) => ({ id: randomUUID(), type: c.type, version: c.version }));
    await repo.insertConsents(sql, userId, rows, clock());
  }

  /** Required consent types the user has not recorded yet. */
  async function missingConsents(userId: string): Promise<RequiredConsentType[]> {
    const recorded = new Set(await repo.consentTypes(db, userId));
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
    const user = await repo.findUser(db, userId);
    if (!user) throw new AppError('AUTH_REQUIRED');
    return profileView(user, cipher);
  }

  /**
   * Only name and e-mail change here. A new e-mail becomes the account's at once, unproven: a code goes
   * to it (POST /auth/verify-change-email proves it, and so does the first sign-in through it). Null
   * removes the e-mail (and any claim) unless it would leave the account without a proven identifier.
   */
  async function updateMe(userId: string, input: { name?: string; email?: string | null }) {
    const { user, codes } = await db.transaction(async (tx) => {
      const now = clock();
      let issued: IssuedCode[] = [];
      if (input.email === null) {
        const row = await repo.findUser(tx, userId, { lock: true });
        if (!row?.phoneHash || !row.phoneProven) {
          throw validationError([{ path: 'email', message: 'An account needs a proven phone or e-mail' }]);
        }
        await repo.removeEmail(tx, userId, now);
      } else if (input.email !== undefined) {
        issued = await emailChange.request(tx, userId, input.email);
      }
      if (input.name !== undefined) await repo.updateName(tx, userId, input.name, now);
      else await repo.touchUser(tx, userId, now);
      return { user: await repo.findUser(tx, userId), codes: issued };
    });
    if (!user) throw new AppError('AUTH_REQUIRED');
    await otp.send(codes);
    return profileView(user, cipher);
  }

  return { register, login, verifyOtp, recordConsents: recordConsentsFor, missingConsents, session, me, updateMe };

  function hashesOf(ids: Identifiers) {
    return { phone: ids.phone && cipher.lookupHash(ids.phone), email: ids.email && cipher.lookupHash(ids.email) };
  }

  function matchesAll(user: UserRow, ids: Identifiers): boolean {
    return (
      (!ids.phone || user.phoneHash === cipher.lookupHash(ids.phone)) && (!ids.email || user.emailHash === cipher.lookupHash(ids.email))
    );
  }
}

export type AccountService = ReturnType<typeof createAccountService>;
export type { IssuedSession };
