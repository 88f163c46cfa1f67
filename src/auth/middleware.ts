import { parse as parseCookies, serialize } from 'cookie';
import type { RequestHandler, Response } from 'express';
import type { AppRole } from '../entities';
import { AppError } from '../http/errors';
import type { Principal, SessionService } from './sessions';

export const SESSION_COOKIE = 'activation-sys-session';

/** Exactly: HttpOnly, Secure, SameSite=Strict, Path=/, Max-Age=3600, Priority=High. */
export function setSessionCookie(res: Response, token: string, maxAgeSeconds: number): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, {
      httpOnly: true,
      secure: true,
      sameSite: 'strict',
      path: '/',
      maxAge: maxAgeSeconds,
      priority: 'high',
    }),
  );
}

export function clearSessionCookie(res: Response): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, '', { httpOnly: true, secure: true, sameSite: 'strict', path: '/', maxAge: 0, priority: 'high' }),
  );
}

function tokenOf(authorization: string | undefined, cookieHeader: string | undefined): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (bearer) return bearer[1];
  if (!cookieHeader) return undefined;
  return parseCookies(cookieHeader)[SESSION_COOKIE] || undefined;
}

/** Resolves the caller from the bearer token or the session cookie into `res.locals.principal`. */
export function authenticate(sessions: SessionService): RequestHandler {
  return async (req, res, next) => {
    const token = tokenOf(req.headers.authorization, req.headers.cookie);
    if (!token) return next(new AppError('AUTH_REQUIRED'));
    res.locals.principal = await sessions.authenticate(token);
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new AppError('AUTH_REQUIRED');
  return principal;
}

/** Role guard: AUTH_FORBIDDEN unless the caller holds one of the roles. */
export function requireRole(...roles: AppRole[]): RequestHandler {
  return (_req, res, next) => {
    next(roles.includes(principalOf(res).user.appRole) ? undefined : new AppError('AUTH_FORBIDDEN'));
  };
}
