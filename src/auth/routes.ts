import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router, type Request, type Response } from 'express';
import { AppError, languageOf } from '../http/errors';
import { successMessage, type SuccessMessage } from '../http/messages';
import { defineRoute } from '../http/route';
import { parsed } from '../http/validate';
import type { AccountService } from './account';
import { clientTypeOf } from './client-type';
import type { MagicLinkService } from './magic-link';
import { authenticate, clearSessionCookie, principalOf, setSessionCookie } from './middleware';
import type { PhoneChangeService } from './phone-change';
import * as s from './schemas';
import type { IssuedSession, SessionService } from './sessions';

export interface AuthRouteDeps {
  accounts: AccountService;
  phoneChange: PhoneChangeService;
  magicLinks: MagicLinkService;
  sessions: SessionService;
  webSessionSeconds: number;
}

type Body<T> = T extends { _zod: { output: infer O } } ? O : never;

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

export function authRoutes(registry: OpenAPIRegistry, deps: AuthRouteDeps): Router {
  const router = Router();
  const { accounts } = deps;
  const auth = authenticate(deps.sessions);
  const tag = 'Accounts';

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/register',
      tag,
      auth: 'public',
      summary: 'Register and receive an OTP on every given identifier',
      body: s.RegisterBody,
      response: { status: 201, schema: s.RegisterResponse },
      errors: [
        'AUTH_NO_CREDENTIAL',
        'AUTH_PHONE_EXISTS',
        'AUTH_EMAIL_EXISTS',
        'AUTH_CONSENT_REQUIRED',
        'AUTH_RATE_LIMIT_EXCEEDED',
        'VALIDATION_ERROR',
      ],
    },
    async (req, res) => {
      const input = parsed<Body<typeof s.RegisterBody>>(res, 'body');
      requireCredential(input);
      if (!s.consentsValid(input.consents)) throw new AppError('AUTH_CONSENT_REQUIRED');
      const { userId } = await accounts.register({ ...input, consents: input.consents });
      res.status(201).json({ userId, message: say(req, 'CODE_SENT') });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/login',
      tag,
      auth: 'public',
      summary: 'Send a sign-in OTP',
      description: 'An unregistered identifier answers AUTH_INVALID_OTP, exactly like a wrong code.',
      body: s.LoginBody,
      response: { status: 200, schema: s.MessageResponse },
      errors: ['AUTH_NO_CREDENTIAL', 'AUTH_INVALID_OTP', 'AUTH_RATE_LIMIT_EXCEEDED', 'VALIDATION_ERROR'],
    },
    async (req, res) => {
      const input = parsed<Body<typeof s.LoginBody>>(res, 'body');
      requireCredential(input);
      await accounts.login(input);
      res.json({ message: say(req, 'CODE_SENT') });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/verify-otp',
      tag,
      auth: 'public',
      summary: 'Complete registration or login',
      description:
        'Client type from X-Client-Type (mobile|web) or the user agent. Web: Set-Cookie activation-sys-session. Mobile: token in the body.',
      body: s.VerifyOtpBody,
      response: { status: 200, schema: s.SignInResponse },
      errors: ['AUTH_INVALID_OTP', 'AUTH_EXPIRED_OTP', 'AUTH_ACCOUNT_DEACTIVATED', 'VALIDATION_ERROR'],
    },
    async (req, res) => {
      const input = parsed<Body<typeof s.VerifyOtpBody>>(res, 'body');
      const { user, session } = await accounts.verifyOtp(input, clientTypeOf(req.headers));
      res.json({ user, session: sessionAnswer(res, session, deps.webSessionSeconds) });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/magic-link',
      tag,
      auth: 'public',
      summary: 'Redeem a company invitation',
      body: s.MagicLinkBody,
      response: { status: 200, schema: s.MagicLinkResponse },
      errors: [
        'VALIDATION_ERROR',
        'MAGIC_LINK_INVALID',
        'MAGIC_LINK_ALREADY_USED',
        'MAGIC_LINK_REVOKED',
        'MAGIC_LINK_EXPIRED',
        'COMPANY_NOT_APPROVED',
        'AUTH_ACCOUNT_DEACTIVATED',
        'MAGIC_LINK_USER_ALREADY_ACTIVE',
      ],
    },
    async (req, res) => {
      const { token } = parsed<Body<typeof s.MagicLinkBody>>(res, 'body');
      const { user, session, b2b } = await deps.magicLinks.redeem(token, clientTypeOf(req.headers));
      res.json({ user, session: sessionAnswer(res, session, deps.webSessionSeconds), b2b });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/consents',
      tag,
      auth: 'session',
      summary: 'Record the three required consents',
      body: s.ConsentsBody,
      response: { status: 201, schema: s.ConsentsResponse },
      errors: ['AUTH_REQUIRED', 'AUTH_CONSENT_REQUIRED', 'VALIDATION_ERROR'],
    },
    auth,
    async (_req, res) => {
      const { consents } = parsed<Body<typeof s.ConsentsBody>>(res, 'body');
      if (!s.consentsValid(consents)) throw new AppError('AUTH_CONSENT_REQUIRED');
      await accounts.recordConsents(principalOf(res).user.id, consents);
      res.status(201).json({ data: { recorded: true } });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/logout',
      tag,
      auth: 'session',
      summary: 'End the session',
      description: 'Web: clears the cookie. Mobile: blocklists the token (SHA-256) for its remaining lifetime.',
      response: { status: 200, schema: s.MessageResponse },
      errors: ['AUTH_REQUIRED'],
    },
    auth,
    async (req, res) => {
      const principal = principalOf(res);
      await deps.sessions.logout(principal);
      if (principal.clientType === 'web') clearSessionCookie(res);
      res.json({ message: say(req, 'SIGNED_OUT') });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/auth/session',
      tag,
      auth: 'session',
      summary: 'The current session and user',
      response: { status: 200, schema: s.SessionResponse },
      errors: ['AUTH_REQUIRED', 'AUTH_SESSION_EXPIRED'],
    },
    auth,
    (_req, res) => {
      res.json(accounts.session(principalOf(res)));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/auth/me',
      tag,
      auth: 'session',
      summary: 'The profile, personal data decrypted',
      response: { status: 200, schema: s.ProfileUser },
      errors: ['AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      res.json(await accounts.me(principalOf(res).user.id));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'put',
      path: '/auth/me',
      tag,
      auth: 'session',
      summary: 'Change name or e-mail (null removes it)',
      description:
        'Only name and email are accepted. An e-mail registered to another account, or removing the last credential, is a VALIDATION_ERROR on `email`.',
      body: s.UpdateMeBody,
      response: { status: 200, schema: s.ProfileUser },
      errors: ['AUTH_REQUIRED', 'VALIDATION_ERROR'],
    },
    auth,
    async (_req, res) => {
      res.json(await accounts.updateMe(principalOf(res).user.id, parsed<Body<typeof s.UpdateMeBody>>(res, 'body')));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/change-phone',
      tag,
      auth: 'session',
      summary: 'Send a phone-change code to the new number',
      body: s.ChangePhoneBody,
      response: { status: 200, schema: s.MessageResponse },
      errors: ['AUTH_REQUIRED', 'VALIDATION_ERROR', 'AUTH_PHONE_EXISTS', 'AUTH_RATE_LIMIT_EXCEEDED'],
      statusOverrides: { AUTH_PHONE_EXISTS: 409 },
    },
    auth,
    async (req, res) => {
      await deps.phoneChange.request(principalOf(res).user.id, parsed<Body<typeof s.ChangePhoneBody>>(res, 'body').newPhone);
      res.json({ message: say(req, 'CODE_SENT') });
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/auth/verify-change-phone',
      tag,
      auth: 'session',
      summary: 'Confirm the new phone with its code',
      body: s.VerifyChangePhoneBody,
      response: { status: 200, schema: s.VerifyChangePhoneResponse },
      errors: [
        'AUTH_REQUIRED',
        'VALIDATION_ERROR',
        'AUTH_INVALID_OTP',
        'AUTH_EXPIRED_OTP',
        'AUTH_PHONE_EXISTS',
        'AUTH_PHONE_UPDATE_FAILED',
      ],
      statusOverrides: { AUTH_PHONE_EXISTS: 409 },
    },
    auth,
    async (req, res) => {
      const { newPhone, otp } = parsed<Body<typeof s.VerifyChangePhoneBody>>(res, 'body');
      const user = await deps.phoneChange.verify(principalOf(res).user.id, newPhone, otp);
      res.json({ data: user, message: say(req, 'PHONE_UPDATED') });
    },
  );

  return router;
}
