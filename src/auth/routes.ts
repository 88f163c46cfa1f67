import type { Request, Response } from 'express';
import { AppError, languageOf } from '../http/errors';
import { guard } from '../http/guards';
import { successMessage, type SuccessMessage } from '../http/messages';
import { json, type Api } from '../http/route';
import type { AccountService } from './account';
import type { EmailChangeService } from './email-change';
import { z } from '../openapi/registry';
import { CLIENT_TYPE_HEADER, clientTypeOf } from './client-type';
import { DEVICE_ID_HEADER, DeviceIdHeader, deviceIdOf } from './devices';
import type { MagicLinkService } from './magic-link';
import { clearSessionCookie, sessionCookieHeader, setSessionCookie } from './middleware';
import type { PhoneChangeService } from './phone-change';
import * as s from './schemas';
import type { IssuedSession, SessionService } from './sessions';

export interface AuthRouteDeps {
  accounts: AccountService;
  phoneChange: PhoneChangeService;
  emailChange: EmailChangeService;
  magicLinks: MagicLinkService;
  sessions: SessionService;
  webSessionSeconds: number;
}

/** Web sessions travel in the cookie; mobile sessions in the body. */
function sessionAnswer(res: Response, session: IssuedSession, webSessionSeconds: number) {
  const base = { clientType: session.clientType, expiresAt: session.expiresAt.toISOString() };
  if (session.clientType === 'mobile') return { ...base, token: session.token };
  setSessionCookie(res, session.token, webSessionSeconds);
  return base;
}

/** A success `message` in the language the request's Accept-Language selects. */
const say = (req: Request, key: SuccessMessage) => successMessage(key, languageOf(req.headers['accept-language']));

/** Register, login, verify-otp: AUTH_NO_CREDENTIAL before anything else. */
function requireCredential(input: { phone?: string; email?: string }): void {
  if (!input.phone && !input.email) throw new AppError('AUTH_NO_CREDENTIAL');
}

/** Sign-in from a blocklisted device answers AUTH_BLOCKLISTED (devices.ts). */
const DEVICE_HEADER = z.object({ [DEVICE_ID_HEADER]: DeviceIdHeader });
const SIGN_IN_HEADERS = CLIENT_TYPE_HEADER.extend({ [DEVICE_ID_HEADER]: DeviceIdHeader });

const WEB_SESSION_COOKIE = sessionCookieHeader(
  'Web clients only: `activation-sys-session=<JWT>; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Strict; Priority=High`',
);
const CLIENT_TYPE =
  'Client type from `X-Client-Type` (`mobile` or `web`), otherwise from the user agent (native HTTP stacks are mobile, browsers and unknown agents web). ' +
  'Web: Set-Cookie `activation-sys-session`, no token in the body. Mobile: the token in the body.';

export function authRoutes(api: Api, deps: AuthRouteDeps): void {
  const { accounts } = deps;
  const tag = 'Accounts';
  // Referenced by the consent lists' JSON Schema (a $ref the generator cannot see).
  api.registry.register('Consent', s.Consent);

  api.define(
    {
      method: 'post',
      path: '/auth/register',
      tag,
      guard: guard.public,
      summary: 'Register and receive an OTP on every given identifier',
      headers: DEVICE_HEADER,
      body: s.RegisterBody,
      response: json(s.RegisterResponse, { status: 201 }),
      errors: [
        'AUTH_NO_CREDENTIAL',
        'AUTH_PHONE_EXISTS',
        'AUTH_EMAIL_EXISTS',
        'AUTH_CONSENT_REQUIRED',
        'AUTH_RATE_LIMIT_EXCEEDED',
        'AUTH_BLOCKLISTED',
      ],
    },
    async ({ body, req }) => {
      requireCredential(body);
      if (!s.consentsValid(body.consents)) throw new AppError('AUTH_CONSENT_REQUIRED');
      const { userId } = await accounts.register({ ...body, consents: body.consents }, deviceIdOf(req.headers));
      return { userId, message: say(req, 'CODE_SENT') };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/login',
      tag,
      guard: guard.public,
      summary: 'Send a sign-in OTP',
      description:
        'An unregistered identifier answers AUTH_INVALID_OTP, exactly like a wrong code. Every identifier an account holds is ' +
        'registered, proven or not (its code proves it). A code goes to each identifier given (each its own code).',
      headers: DEVICE_HEADER,
      body: s.LoginBody,
      response: json(s.MessageResponse),
      errors: ['AUTH_NO_CREDENTIAL', 'AUTH_INVALID_OTP', 'AUTH_RATE_LIMIT_EXCEEDED', 'AUTH_BLOCKLISTED'],
    },
    async ({ body, req }) => {
      requireCredential(body);
      await accounts.login(body, deviceIdOf(req.headers));
      return { message: say(req, 'CODE_SENT') };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/verify-otp',
      tag,
      guard: guard.public,
      summary: 'Complete registration or login',
      description:
        `${CLIENT_TYPE}\n\nThe user object carries both identifiers of a dual-credential account. The code proves the one ` +
        'identifier it was sent to (register sends each identifier its own code); the other stays unproven until its own code ' +
        '(a later sign-in through it, change-phone or verify-change-email) proves it. When an unproven identifier signs in an ' +
        'account that was used before, its other, proven channel gets a notice. With both phone and email given, the code is ' +
        'checked against the newest code of each.',
      headers: SIGN_IN_HEADERS,
      body: s.VerifyOtpBody,
      response: json(s.SignInResponse, { headers: [WEB_SESSION_COOKIE] }),
      errors: ['AUTH_INVALID_OTP', 'AUTH_EXPIRED_OTP', 'AUTH_ACCOUNT_DEACTIVATED', 'AUTH_BLOCKLISTED'],
    },
    async ({ body, req, res }) => {
      const { user, session } = await accounts.verifyOtp(body, clientTypeOf(req.headers), deviceIdOf(req.headers));
      return { user, session: sessionAnswer(res, session, deps.webSessionSeconds) };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/magic-link',
      tag,
      guard: guard.public,
      summary: 'Redeem a company invitation',
      description: `Creates a session exactly as verify-otp does. ${CLIENT_TYPE}`,
      headers: SIGN_IN_HEADERS,
      body: s.MagicLinkBody,
      response: json(s.MagicLinkResponse, { headers: [WEB_SESSION_COOKIE] }),
      errors: [
        'MAGIC_LINK_INVALID',
        'MAGIC_LINK_ALREADY_USED',
        'MAGIC_LINK_REVOKED',
        'MAGIC_LINK_EXPIRED',
        'COMPANY_NOT_APPROVED',
        'AUTH_ACCOUNT_DEACTIVATED',
        'MAGIC_LINK_USER_ALREADY_ACTIVE',
        'AUTH_BLOCKLISTED',
      ],
    },
    async ({ body, req, res }) => {
      const { user, session, b2b } = await deps.magicLinks.redeem(body.token, clientTypeOf(req.headers), deviceIdOf(req.headers));
      return { user, session: sessionAnswer(res, session, deps.webSessionSeconds), b2b };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/consents',
      tag,
      guard: guard.session,
      summary: 'Record the three required consents',
      body: s.ConsentsBody,
      response: json(s.ConsentsResponse, { status: 201 }),
      errors: ['AUTH_CONSENT_REQUIRED'],
    },
    async ({ body, principal }) => {
      if (!s.consentsValid(body.consents)) throw new AppError('AUTH_CONSENT_REQUIRED');
      await accounts.recordConsents(principal.user.id, body.consents);
      return { data: { recorded: true as const } };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/logout',
      tag,
      guard: guard.session,
      summary: 'End the session',
      description: 'Web: clears the cookie. Mobile: blocklists the token (SHA-256) for its remaining lifetime.',
      response: json(s.MessageResponse, {
        headers: [sessionCookieHeader('Web sessions only: clears the cookie (`activation-sys-session=; Max-Age=0; …`)')],
      }),
      errors: [],
    },
    async ({ principal, req, res }) => {
      await deps.sessions.logout(principal);
      if (principal.clientType === 'web') clearSessionCookie(res);
      return { message: say(req, 'SIGNED_OUT') };
    },
  );

  api.define(
    {
      method: 'get',
      path: '/auth/session',
      tag,
      guard: guard.session,
      summary: 'The current session and user',
      response: json(s.SessionResponse),
      errors: [],
    },
    ({ principal }) => accounts.session(principal),
  );

  api.define(
    {
      method: 'get',
      path: '/auth/me',
      tag,
      guard: guard.session,
      summary: 'The profile, personal data decrypted',
      response: json(s.ProfileUser),
      errors: [],
    },
    ({ principal }) => accounts.me(principal.user.id),
  );

  api.define(
    {
      method: 'put',
      path: '/auth/me',
      tag,
      guard: guard.session,
      summary: 'Change name or e-mail (null removes it)',
      description:
        'Only name and email are accepted (any other field is a VALIDATION_ERROR). Both change at once and the answer is the ' +
        'updated user. A new e-mail is unproven until its code (sent now, counted in the 3-per-15-minutes OTP limit of that ' +
        'address) is confirmed through POST /auth/verify-change-email or a sign-in through it; while another account holds the ' +
        'address unproven, it waits as a claim and the answer keeps the current e-mail. An e-mail another account proved, or ' +
        'removing the e-mail of an account without a proven phone, is a VALIDATION_ERROR on `email`.',
      body: s.UpdateMeBody,
      response: json(s.ProfileUser),
      errors: ['AUTH_RATE_LIMIT_EXCEEDED'],
    },
    ({ body, principal }) => accounts.updateMe(principal.user.id, body),
  );

  api.define(
    {
      method: 'post',
      path: '/auth/change-phone',
      tag,
      guard: guard.session,
      summary: 'Send a phone-change code to the new number',
      description:
        'Your own proven number is a VALIDATION_ERROR on `newPhone`; a number another account proved is AUTH_PHONE_EXISTS (409), and ' +
        'no code is sent. A number an account only named (never proven) is anyone’s to prove: its code moves it here.',
      body: s.ChangePhoneBody,
      response: json(s.MessageResponse),
      errors: ['AUTH_PHONE_EXISTS', 'AUTH_RATE_LIMIT_EXCEEDED'],
      statusOverrides: { AUTH_PHONE_EXISTS: 409 },
    },
    async ({ body, principal, req }) => {
      await deps.phoneChange.request(principal.user.id, body.newPhone);
      return { message: say(req, 'CODE_SENT') };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/verify-change-phone',
      tag,
      guard: guard.session,
      summary: 'Confirm the new phone with its code',
      body: s.VerifyChangePhoneBody,
      response: json(s.VerifyChangePhoneResponse),
      errors: ['AUTH_INVALID_OTP', 'AUTH_EXPIRED_OTP', 'AUTH_PHONE_EXISTS', 'AUTH_PHONE_UPDATE_FAILED'],
      statusOverrides: { AUTH_PHONE_EXISTS: 409 },
    },
    async ({ body, principal, req }) => {
      const user = await deps.phoneChange.verify(principal.user.id, body.newPhone, body.otp);
      return { data: user, message: say(req, 'PHONE_UPDATED') };
    },
  );

  api.define(
    {
      method: 'post',
      path: '/auth/verify-change-email',
      tag,
      guard: guard.session,
      summary: 'Confirm a new e-mail with its code',
      description:
        'Proves the e-mail PUT /auth/me set, as verify-change-phone completes change-phone. The code is bound to the ' +
        '`change_email` purpose, the signed-in user and the address, so sign-in codes cannot complete it. No new session is ' +
        'created. An address another account proved meanwhile is a VALIDATION_ERROR on `newEmail`.',
      body: s.VerifyChangeEmailBody,
      response: json(s.VerifyChangeEmailResponse),
      errors: ['AUTH_INVALID_OTP', 'AUTH_EXPIRED_OTP'],
    },
    async ({ body, principal, req }) => {
      const user = await deps.emailChange.verify(principal.user.id, body.newEmail, body.otp);
      return { data: user, message: say(req, 'EMAIL_UPDATED') };
    },
  );
}
