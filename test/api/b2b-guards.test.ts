import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { errorCodes, type ErrorCode } from '../../src/http/error-codes';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { insertCompany, joinCompany } from '../helpers/companies';
import { errorOf } from '../helpers/responses';

// The guard matrix of issue 12: every route the served document lists under the B2B portal and the
// company, settings, administration-user and audit groups, called by every kind of caller. The
// expected answer comes from the spec's guard rules (below), not from the route definitions, and a
// route with no rule fails the test, so a new route in these groups must be classified here.
let t: TestApp;
afterAll(() => t.close());

const GROUPS = [
  '/b2b',
  '/admin/companies',
  '/admin/quotes',
  '/admin/contracts',
  '/admin/links',
  '/admin/settings',
  '/admin/users',
  '/admin/audit-events',
];

type GuardRule = 'super_admin' | 'staff_view' | 'staff_manage' | 'portal' | 'company_read' | 'company_write';

/** The spec ("Guards", "Authentication", "Admin: settings") and issue 12's super_admin groups. */
function ruleOf(method: string, path: string): GuardRule {
  if (path === '/b2b/company') return 'portal';
  if (path.startsWith('/b2b/')) return method === 'get' ? 'company_read' : 'company_write';
  if (path === '/admin/companies/invites') return 'super_admin';
  if (path === '/admin/companies' || path.startsWith('/admin/companies/')) return method === 'get' ? 'staff_view' : 'staff_manage';
  if (path === '/admin/quotes' || path.startsWith('/admin/quotes/')) return method === 'get' ? 'staff_view' : 'staff_manage';
  // "Payment document download needs Manage."
  if (path.startsWith('/admin/contracts/') && path.endsWith('/document')) return 'staff_manage';
  if (path.startsWith('/admin/contracts/')) return method === 'get' ? 'staff_view' : 'staff_manage';
  // "`/admin/links` is read-only": View for every route of the group.
  if (path === '/admin/links' || path.startsWith('/admin/links/')) return 'staff_view';
  if (
    path.startsWith('/admin/settings/') ||
    path === '/admin/users' ||
    path.startsWith('/admin/users/') ||
    path === '/admin/audit-events'
  ) {
    return 'super_admin';
  }
  throw new Error(`no guard rule for ${method.toUpperCase()} ${path}: classify it in b2b-guards.test.ts`);
}

type Caller =
  | 'anonymous'
  | 'end_user'
  | 'b2b_no_company'
  | 'member_approved'
  | 'member_pending'
  | 'admin_approved'
  | 'admin_pending'
  | 'admin_suspended'
  | 'admin_rejected'
  | 'staff_no_area'
  | 'staff_view'
  | 'staff_manage'
  | 'support'
  | 'super_admin';

const COMPANY_STATUS_CODE: Record<string, ErrorCode> = {
  pending: 'COMPANY_NOT_APPROVED',
  suspended: 'COMPANY_SUSPENDED',
  rejected: 'COMPANY_REJECTED',
};

/** The guard's answer: a refusal code, or 'pass' (the route itself answers, whatever that is). */
function expected(caller: Caller, rule: GuardRule): ErrorCode | 'pass' {
  if (caller === 'anonymous') return 'AUTH_REQUIRED';
  const company = /^(member|admin)_(approved|pending|suspended|rejected)$/.exec(caller);
  const isB2b = caller === 'b2b_no_company' || company !== null;
  switch (rule) {
    case 'super_admin':
      return caller === 'super_admin' ? 'pass' : 'AUTH_FORBIDDEN';
    case 'staff_view':
      return ['super_admin', 'staff_view', 'staff_manage'].includes(caller) ? 'pass' : 'AUTH_FORBIDDEN';
    case 'staff_manage':
      return ['super_admin', 'staff_manage'].includes(caller) ? 'pass' : 'AUTH_FORBIDDEN';
    case 'portal':
      return isB2b ? 'pass' : 'AUTH_FORBIDDEN';
    case 'company_read':
    case 'company_write': {
      // Role, then membership (a viewer's write is refused before the company's state), then the company's status.
      if (!company) return 'AUTH_FORBIDDEN';
      const [, role, status] = company;
      if (rule === 'company_write' && role === 'member') return 'AUTH_FORBIDDEN';
      return status === 'approved' ? 'pass' : COMPANY_STATUS_CODE[status];
    }
  }
}

const GUARD_CODES = new Set<string>([
  'AUTH_REQUIRED',
  'AUTH_FORBIDDEN',
  'AUTH_SESSION_EXPIRED',
  'AUTH_ACCOUNT_DEACTIVATED',
  'AUTH_BLOCKLISTED',
  'FORBIDDEN',
  ...Object.values(COMPANY_STATUS_CODE),
]);

const tokens = new Map<Caller, string>();

async function caller(name: Caller, setup: (userId: string) => Promise<void>) {
  const { token, userId } = await signUp(t, { name });
  await setup(userId);
  tokens.set(name, token);
}

const setRole = (role: string, areas?: { view: string[]; write: string[] }) => (userId: string) =>
  t.db
    .query('update users set app_role = $2, managed_areas = $3, managed_areas_write = $4 where id = $1', [
      userId,
      role,
      areas?.view ?? null,
      areas?.write ?? null,
    ])
    .then(() => undefined);

const inCompany = (status: string, role: 'admin' | 'member') => async (userId: string) => {
  await setRole('b2b_admin')(userId);
  const companyId = await insertCompany(t.db, status);
  // Real ciphertext for the contact fields: the admin routes decrypt them when the guard lets a caller through.
  const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
  await t.db.query('update companies set contact_email_encrypted = $2, contact_phone_encrypted = $3 where id = $1', [
    companyId,
    cipher.encrypt('contact@example.com'),
    cipher.encrypt('+966500000000'),
  ]);
  await joinCompany(t.db, companyId, userId, role);
};

let routes: Array<{ method: string; path: string; rule: GuardRule }> = [];

beforeAll(async () => {
  t = await createTestApp();
  await caller('end_user', () => Promise.resolve());
  await caller('b2b_no_company', setRole('b2b_admin'));
  await caller('member_approved', inCompany('approved', 'member'));
  await caller('member_pending', inCompany('pending', 'member'));
  for (const status of ['approved', 'pending', 'suspended', 'rejected'] as const) {
    await caller(`admin_${status}`, inCompany(status, 'admin'));
  }
  await caller('staff_no_area', setRole('admin', { view: [], write: [] }));
  await caller('staff_view', setRole('admin', { view: ['b2b'], write: [] }));
  await caller('staff_manage', setRole('admin', { view: ['b2b'], write: ['b2b'] }));
  await caller('support', setRole('support'));
  await caller('super_admin', setRole('super_admin'));

  const doc = (await request(t.app).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths)
    .filter(([path]) => GROUPS.some((g) => path === g || path.startsWith(`${g}/`)))
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path, rule: ruleOf(method, path) })));
});

const CALLERS: Caller[] = [
  'anonymous',
  'end_user',
  'b2b_no_company',
  'member_approved',
  'member_pending',
  'admin_approved',
  'admin_pending',
  'admin_suspended',
  'admin_rejected',
  'staff_no_area',
  'staff_view',
  'staff_manage',
  'support',
  'super_admin',
];

it('covers every route group of issue 12', () => {
  const rules = new Set(routes.map((r) => r.rule));
  expect([...rules].sort()).toEqual(['company_read', 'company_write', 'portal', 'staff_manage', 'staff_view', 'super_admin']);
  for (const group of GROUPS) expect(routes.some((r) => r.path === group || r.path.startsWith(`${group}/`))).toBe(true);
});

describe.each(CALLERS)('%s', (who) => {
  it('gets the guard answer the spec gives on every route (in English and Arabic)', async () => {
    const failures: string[] = [];
    for (const [i, route] of routes.entries()) {
      // Random ids and an empty body: a caller the guard lets through meets a 404 or a validation error, never a change.
      const path = route.path.replace(/\{\w+\}/g, randomUUID());
      const lang = i % 2 === 0 ? 'en' : 'ar';
      let req = request(t.app)[route.method as 'get'](path).set('Accept-Language', lang);
      const token = tokens.get(who);
      if (token) req = req.set(bearer(token));
      if (['post', 'put', 'patch'].includes(route.method)) req = req.send({});
      const res = await req;
      const want = expected(who, route.rule);
      const got = errorCode(res);
      const label = `${route.method.toUpperCase()} ${route.path} (${route.rule})`;
      if (want === 'pass') {
        if (got !== undefined && GUARD_CODES.has(got)) failures.push(`${label}: refused with ${got}, expected to pass the guard`);
        // Past the guard the route answers for itself; a server error there is a defect too.
        if (res.status >= 500) failures.push(`${label}: ${res.status} ${got} past the guard`);
      } else if (got !== want || res.status !== errorCodes[want].status) {
        failures.push(`${label}: ${res.status} ${got}, expected ${errorCodes[want].status} ${want}`);
      } else if (errorOf(res).message !== errorCodes[want][lang]) {
        failures.push(`${label}: message not in ${lang}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
