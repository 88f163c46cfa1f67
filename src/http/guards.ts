import { parse as parseCookies } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppRole, CompanyRole, CompanyStatus } from '../entities';
import type { ErrorCode } from './error-codes';
import { deviceIdOf } from './device-id';
import { AppError } from './errors';
import type { Principal } from './principal';

export const SESSION_COOKIE = 'activation-sys-session';

/** Portal areas an `admin` user can be given (`managedAreas` / `managedAreasWrite`). */
export const STAFF_AREAS = ['b2b', 'store'] as const;
export type StaffArea = (typeof STAFF_AREAS)[number];

/**
 * Who may call a route: a closed set covering both specs. A route names one,
 * the route definition installs it and documents it (security, 401/403 answers).
 */
export type Guard =
  | { kind: 'public' }
  /** Any signed-in user. */
  | { kind: 'session' }
  /** super_admin only; others get AUTH_FORBIDDEN 403. */
  | { kind: 'super_admin' }
  /** super_admin only; others get FORBIDDEN 401 (spec: compliance routes). */
  | { kind: 'compliance' }
  /** super_admin, or `admin` holding the area (view: managedAreas, manage: managedAreasWrite). */
  | { kind: 'staff'; area: StaffArea; access: 'view' | 'manage' }
  /** role b2b_admin, no company needed (GET and POST /b2b/company). */
  | { kind: 'portal' }
  /** role b2b_admin, member (read) or admin (write) of an approved company. */
  | { kind: 'company'; access: 'read' | 'write' };

export const guard = {
  public: { kind: 'public' },
  session: { kind: 'session' },
  superAdmin: { kind: 'super_admin' },
  compliance: { kind: 'compliance' },
  staff: (area: StaffArea, access: 'view' | 'manage') => ({ kind: 'staff', area, access }) as const,
  portal: { kind: 'portal' },
  company: (access: 'read' | 'write') => ({ kind: 'company', access }) as const,
} as const;

/** The caller's company, resolved from the membership table on every request. */
export interface CompanyContext {
  companyId: string;
  role: CompanyRole;
}

export interface Membership extends CompanyContext {
  status: CompanyStatus;
}

/** What a guard hands the handler: nothing for public routes, the caller, and for company routes their company. */
export type GuardContext<G extends Guard> = G extends { kind: 'public' }
  ? object
  : G extends { kind: 'company' }
    ? { principal: Principal; company: CompanyContext }
    : { principal: Principal };

export interface GuardDeps {
  /** The session check (src/auth/sessions.ts): the caller of a token, or an AUTH_* refusal. */
  sessions: { authenticate(token: string, deviceId?: string): Promise<Principal> };
  /** Fresh role and areas of a user, read on every staff request (never frozen in the token). */
  staffAccess(userId: string): Promise<StaffAccess | null>;
  /** The caller's company membership with the company's status, or null. */
  membership(userId: string): Promise<Membership | null>;
}

export interface StaffAccess {
  appRole: AppRole;
  managedAreas: string[] | null;
  managedAreasWrite: string[] | null;
}

/** The codes each guard can answer with, for the route's OpenAPI responses. */
export function guardErrors(g: Guard): ErrorCode[] {
  const session: ErrorCode[] = ['AUTH_REQUIRED', 'AUTH_SESSION_EXPIRED', 'AUTH_ACCOUNT_DEACTIVATED', 'AUTH_BLOCKLISTED'];
  switch (g.kind) {
    case 'public':
      return [];
    case 'session':
      return session;
    case 'compliance':
      return [...session, 'FORBIDDEN'];
    case 'super_admin':
    case 'staff':
    case 'portal':
      return [...session, 'AUTH_FORBIDDEN'];
    case 'company':
      return [...session, 'AUTH_FORBIDDEN', 'COMPANY_NOT_APPROVED', 'COMPANY_SUSPENDED', 'COMPANY_REJECTED'];
  }
}

/** One line for the route's OpenAPI description. */
export function guardDescription(g: Guard): string {
  switch (g.kind) {
    case 'public':
      return 'Public.';
    case 'session':
      return 'Signed-in users.';
    case 'super_admin':
      return 'super_admin only (others: AUTH_FORBIDDEN).';
    case 'compliance':
      return 'super_admin only (compliance route: others get FORBIDDEN with status 401).';
    case 'staff':
      return `super_admin, or admin with the \`${g.area}\` area (${g.access === 'view' ? 'managedAreas' : 'managedAreasWrite'}); role is checked before area.`;
    case 'portal':
      return 'Company portal staff (role b2b_admin).';
    case 'company':
      return g.access === 'read'
        ? 'Company portal staff (b2b_admin), admin or member of an approved company.'
        : 'Company portal staff (b2b_admin), admin of an approved company (members get AUTH_FORBIDDEN).';
  }
}

function tokenOf(req: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (bearer) return bearer[1];
  const cookies = req.headers.cookie;
  return cookies ? parseCookies(cookies)[SESSION_COOKIE] || undefined : undefined;
}

const COMPANY_STATUS_ERRORS: Record<Exclude<CompanyStatus, 'approved'>, ErrorCode> = {
  pending: 'COMPANY_NOT_APPROVED',
  suspended: 'COMPANY_SUSPENDED',
  rejected: 'COMPANY_REJECTED',
};

/** Area check on fresh data: super_admin passes both; admin needs the area in the list for the access. */
export function holdsArea(access: StaffAccess, area: StaffArea, kind: 'view' | 'manage'): boolean {
  if (access.appRole === 'super_admin') return true;
  // Role first: a b2b_admin (or anyone but admin) never passes, whatever areas it holds.
  if (access.appRole !== 'admin') return false;
  const areas = kind === 'view' ? access.managedAreas : access.managedAreasWrite;
  return areas?.includes(area) ?? false;
}

/**
 * The guard middlewares. Each stores what it resolved in res.locals
 * (`principal`, `company`), which the route definition hands to the handler.
 */
export function createGuards(deps: GuardDeps) {
  const authenticate = async (req: Request, res: Response): Promise<Principal> => {
    const token = tokenOf(req);
    if (!token) throw new AppError('AUTH_REQUIRED');
    // A blocklisted user, or a blocklisted device (X-Device-Id, or the one the session signed in from): AUTH_BLOCKLISTED.
    const principal = await deps.sessions.authenticate(token, deviceIdOf(req.headers));
    res.locals.principal = principal;
    return principal;
  };

  const checks: { [K in Guard['kind']]: (g: Extract<Guard, { kind: K }>, req: Request, res: Response) => Promise<void> } = {
    public: () => Promise.resolve(),
    session: async (_g, req, res) => {
      await authenticate(req, res);
    },
    super_admin: async (_g, req, res) => {
      const { user } = await authenticate(req, res);
      if (user.appRole !== 'super_admin') throw new AppError('AUTH_FORBIDDEN');
    },
    compliance: async (_g, req, res) => {
      const { user } = await authenticate(req, res);
      if (user.appRole !== 'super_admin') throw new AppError('FORBIDDEN');
    },
    staff: async (g, req, res) => {
      const { user } = await authenticate(req, res);
      const access = await deps.staffAccess(user.id);
      if (!access || !holdsArea(access, g.area, g.access)) throw new AppError('AUTH_FORBIDDEN');
    },
    portal: async (_g, req, res) => {
      const { user } = await authenticate(req, res);
      if (user.appRole !== 'b2b_admin') throw new AppError('AUTH_FORBIDDEN');
    },
    company: async (g, req, res) => {
      const { user } = await authenticate(req, res);
      if (user.appRole !== 'b2b_admin') throw new AppError('AUTH_FORBIDDEN');
      const membership = await deps.membership(user.id);
      // requireCompanyMember: no membership, or a viewer on a write, is an authorization failure.
      if (!membership || (g.access === 'write' && membership.role !== 'admin')) throw new AppError('AUTH_FORBIDDEN');
      // The company's own state is an application error, so clients do not sign the user out.
      if (membership.status !== 'approved') throw new AppError(COMPANY_STATUS_ERRORS[membership.status]);
      res.locals.company = { companyId: membership.companyId, role: membership.role } satisfies CompanyContext;
    },
  };

  return function middleware(g: Guard): RequestHandler {
    const check = checks[g.kind] as (g: Guard, req: Request, res: Response) => Promise<void>;
    return (req: Request, res: Response, next: NextFunction) => {
      check(g, req, res).then(() => next(), next);
    };
  };
}

export type GuardMiddleware = ReturnType<typeof createGuards>;
