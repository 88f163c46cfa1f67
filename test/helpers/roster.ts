// What the roster route tests share: stage through the route, and callers of a company in any status.
import request from 'supertest';
import type { z } from 'zod';
import type { ReadinessGate } from '../../workflows/contracts/company-contract';
import type { SignalSender } from '../../src/workflow-signals/kinds';
import type { CompanyStatus } from '../../src/entities';
import type { StageRosterResponse } from '../../src/roster/schemas';
import { bearer, type TestApp } from './app';
import { insertCompany, joinCompany } from './companies';
import { fakeCompanyRuns, signInAs, type Caller } from './company-routes';
import { typed } from './responses';

export type StageAnswer = z.infer<typeof StageRosterResponse>;

/**
 * The fake runs of company-routes.ts, and a signal sender recording the readiness signals the API sends
 * (pending signals, src/workflow-signals); `hold` makes it never answer (Temporal away).
 */
export function recordingRuns(db: () => TestApp['db']) {
  const readiness: { companyId: string; gate: ReadinessGate }[] = [];
  const state = { hold: false, asked: 0 };
  const runs = fakeCompanyRuns(db);
  const signalSender: SignalSender = ({ workflowId, signal, args }) => {
    state.asked += 1;
    if (state.hold) return new Promise<never>(() => undefined);
    if (signal === 'readinessChanged') readiness.push({ companyId: workflowId.replace(/^company:/, ''), gate: args.gate as ReadinessGate });
    return Promise.resolve('signalled');
  };
  return { runs, readiness, signalSender, state };
}

/** A b2b_admin with `role` in a new company in `status` (written with SQL). */
export async function rosterCaller(
  t: TestApp,
  status: CompanyStatus = 'approved',
  role: 'admin' | 'member' = 'admin',
): Promise<Caller & { companyId: string }> {
  const companyId = await insertCompany(t.db, status);
  const caller = await signInAs(t, 'b2b_admin');
  await joinCompany(t.db, companyId, caller.userId, role);
  return { ...caller, companyId };
}

export async function stage(t: TestApp, token: string, rows: unknown, lang?: string) {
  const req = request(t.app).post('/b2b/roster/stage').set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<StageAnswer>(await req.send({ rows }));
}

let contact = 0;
/** A unique staged person: a non-Saudi E.164 phone and an e-mail, distinct from every sign-up of the file. */
export function person(overrides: Record<string, unknown> = {}) {
  contact += 1;
  const n = `${process.pid % 1000}`.padStart(3, '0') + `${contact}`.padStart(5, '0');
  return {
    name: `Person ${contact}`,
    phone: `+4477${n}`,
    email: `person${n}@staff.example`,
    identityType: 'resident',
    nationality: 'Egypt',
    ...overrides,
  };
}
