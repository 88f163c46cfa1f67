import { serialize } from 'cookie';
import type { Response } from 'express';
import { SESSION_COOKIE } from '../http/guards';
import { z } from '../openapi/registry';
import type { HeaderSpec } from '../http/route';

export { SESSION_COOKIE };

const COOKIE_ATTRIBUTES = { httpOnly: true, secure: true, sameSite: 'strict', path: '/', priority: 'high' } as const;

/** Exactly: HttpOnly, Secure, SameSite=Strict, Path=/, Max-Age=3600, Priority=High. */
export function setSessionCookie(res: Response, token: string, maxAgeSeconds: number): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, token, { ...COOKIE_ATTRIBUTES, maxAge: maxAgeSeconds }));
}

export function clearSessionCookie(res: Response): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', { ...COOKIE_ATTRIBUTES, maxAge: 0 }));
}

/** The Set-Cookie header of web sign-in and web logout, as the document declares it. */
export const sessionCookieHeader = (description: string): HeaderSpec => ({
  name: 'Set-Cookie',
  schema: z.string().regex(new RegExp(`^${SESSION_COOKIE}=`)),
  required: false,
  description,
});
