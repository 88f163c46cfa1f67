// What the company route tests share: a fake CompanyRuns that applies the status table the way the
// onboarding workflow does, callers of every role, and a company registered through the route.
import request from 'supertest';
import type { CompanyRuns } from '../../src/companies/runs';
import type { AppRole, CompanyRole, CompanyStatus } from '../../src/entities';
import { AppError } from '../../src/http/errors';
import { transitionOf, type StatusChangeRequest } from '../../workflows/contracts/company-contract';
import { bearer, signUp, type TestApp } from './app';
import { joinCompany } from './companies';

export interface FakeCompanyRuns extends CompanyRuns {
  started: string[];
  statusCalls: { companyId: string; request: StatusChangeRequest }[];
  /** The next start fails with this error (once). */
  failNextStart(err?: Error): void;
  /** The next changeStatus fails with this error (once), writing nothing. */
  failNextStatusChange(err: Error): void;
}

/**
 * Starts always succeed (unless told otherwise); changeStatus applies COMPANY_TRANSITIONS in one
 * conditional update, so two actions at once cannot both win, and stamps approvedBy/approvedAt on approve.
 */
export function fakeCompanyRuns(db: () => TestApp['db']): FakeCompanyRuns {
  let nextStartError: Error | null = null;
  let nextStatusError: Error | null = null;
  const fake: FakeCompanyRuns = {
    started: [],
    statusCalls: [],
    failNextStart(err = new Error('Temporal is away')) {
      nextStartError = err;
    },
    failNextStatusChange(err) {
      nextStatusError = err;
    },
    start(companyId) {
      const err = nextStartError;
      nextStartError = null;
      if (err) return Promise.reject(err);
      fake.started.push(companyId);
      return Promise.resolve();
    },
    async changeStatus(companyId, req) {
      fake.statusCalls.push({ companyId, request: req });
      const err = nextStatusError;
      nextStatusError = null;
      if (err) throw err;
      const [current] = await db().query<{ status: CompanyStatus }>('select status from companies where id = $1', [companyId]);
      const to = transitionOf(current.status, req.action);
      if (!to) throw new AppError('COMPANY_INVALID_TRANSITION', { details: { from: current.status, action: req.action } });
      const updated = await db().query(
        `update companies set status = $2, updated_at = now(),
                approved_by = case when $4 = 'approve' then $5::uuid else approved_by end,
                approved_at = case when $4 = 'approve' then now() else approved_at end
          where id = $1 and status = $3 returning id`,
        [companyId, to, current.status, req.action, req.actorUserId],
      );
      if (updated.length === 0) throw new AppError('COMPANY_INVALID_TRANSITION', { details: { from: to, action: req.action } });
      return { from: current.status, to };
    },
    readinessChanged: () => Promise.resolve(),
  };
  return fake;
}

export interface Caller {
  token: string;
  userId: string;
}

/** A signed-in user of any application role; `admin` staff get the areas given. */
export async function signInAs(t: TestApp, role: AppRole, areas: { view?: string[]; manage?: string[] } = {}): Promise<Caller> {
  const user = await signUp(t, { name: `A ${role}` });
  await t.db.query('update users set app_role = $2, managed_areas = $3, managed_areas_write = $4 where id = $1', [
    user.userId,
    role,
    role === 'admin' ? (areas.view ?? []) : null,
    role === 'admin' ? (areas.manage ?? []) : null,
  ]);
  return { token: user.token, userId: user.userId };
}

let crCounter = 0;
/** A fresh 10-digit CR number per call (unique across test files sharing nothing but the pid). */
export function newCrNumber(): string {
  crCounter += 1;
  return `7${String(process.pid % 100000).padStart(5, '0')}${String(crCounter).padStart(4, '0')}`;
}

export function registrationBody(overrides: Record<string, unknown> = {}) {
  return {
    inKsa: true,
    crNumber: newCrNumber(),
    name: 'Acme Trading',
    contactName: 'Sara Ali',
    contactEmail: 'sara@acme.example',
    contactPhone: '+447700900123',
    ...overrides,
  };
}

/** A b2b_admin who registered a company through the route, then (by SQL) moved it to `status`. */
export async function companyAdmin(
  t: TestApp,
  status: CompanyStatus = 'approved',
  overrides: Record<string, unknown> = {},
): Promise<Caller & { companyId: string }> {
  const caller = await signInAs(t, 'b2b_admin');
  const res = await request(t.app).post('/b2b/company').set(bearer(caller.token)).send(registrationBody(overrides));
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  const companyId = (res.body as { data: { company: { id: string } } }).data.company.id;
  await t.db.query('update companies set status = $2 where id = $1', [companyId, status]);
  return { ...caller, companyId };
}

/** A b2b_admin who joins an existing company with `role`. */
export async function companyPerson(t: TestApp, companyId: string, role: CompanyRole): Promise<Caller> {
  const caller = await signInAs(t, 'b2b_admin');
  await joinCompany(t.db, companyId, caller.userId, role);
  return caller;
}
