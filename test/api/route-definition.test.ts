// The route definition itself (src/http/route.ts, guards.ts, contract.ts), on a small app of
// test routes built exactly as src/app.ts builds the API, on the real database.
import request from 'supertest';
import { createSessionService } from '../../src/auth/sessions';
import { guard, type Guard } from '../../src/http/guards';
import { createLogger } from '../../src/http/logger';
import { csv, json, Reply, SerializedJson } from '../../src/http/route';
import { z } from '../../src/openapi/registry';
import type { CompanyRole, CompanyStatus } from '../../src/entities';
import { createRouteTestApp, type RouteTestApp } from '../helpers/api';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { insertCompany, joinCompany } from '../helpers/companies';
import { typed } from '../helpers/responses';

let t: TestApp;
let routes: RouteTestApp;
const logLines: string[] = [];

const Echo = z.object({ ok: z.literal(true), caller: z.string().nullable(), companyId: z.string().nullable() });

/** One GET route per guard kind, answering who passed. */
const GUARDED: Record<string, Guard> = {
  public: guard.public,
  session: guard.session,
  'super-admin': guard.superAdmin,
  compliance: guard.compliance,
  'staff-view': guard.staff('b2b', 'view'),
  'staff-manage': guard.staff('b2b', 'manage'),
  portal: guard.portal,
  'company-read': guard.company('read'),
  'company-write': guard.company('write'),
};

beforeAll(async () => {
  t = await createTestApp();
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  const sessions = createSessionService({ db: t.db.sql, clock: t.clock, config: t.config });
  routes = createRouteTestApp(t, {
    logger,
    sessions,
    register(api) {
      for (const [name, g] of Object.entries(GUARDED)) {
        api.define(
          { method: 'get', path: `/guarded/${name}`, tag: 'Test', guard: g, summary: name, response: json(Echo), errors: [] },
          (input) => ({
            ok: true as const,
            caller: 'principal' in input ? input.principal.user.id : null,
            companyId: 'company' in input ? input.company.companyId : null,
          }),
        );
      }
      api.define(
        {
          method: 'post',
          path: '/things/:id',
          tag: 'Test',
          guard: guard.public,
          summary: 'typed input',
          params: z.object({ id: z.string().regex(/^[a-z]+$/) }),
          query: z.object({ n: z.string().regex(/^\d+$/).transform(Number) }),
          body: z.strictObject({ name: z.string().min(1) }),
          response: json(z.object({ id: z.string(), n: z.number(), name: z.string() }), { status: 201 }),
          errors: [],
        },
        ({ params, query, body }) => ({ id: params.id, n: query.n * 2, name: body.name }),
      );
      api.define(
        {
          method: 'get',
          path: '/drift/:kind',
          tag: 'Test',
          guard: guard.public,
          summary: 'answers that break their declaration',
          params: z.object({ kind: z.enum(['body', 'extra', 'status', 'code', 'fine', 'serialized', 'serialized-bad']) }),
          response: json(z.object({ count: z.number().int() })),
          errors: ['NOT_FOUND'],
        },
        ({ params }) => {
          if (params.kind === 'body') return { count: 'three' as unknown as number };
          if (params.kind === 'extra') return { count: 1, phoneHash: 'leaked' } as { count: number };
          if (params.kind === 'status') return new Reply(202, { count: 1 });
          if (params.kind === 'code') throw new Error('unexpected');
          if (params.kind === 'serialized') return new SerializedJson<{ count: number }>('{"count":4}');
          if (params.kind === 'serialized-bad') return new SerializedJson<{ count: number }>('{"count":4.5}');
          return { count: 3 };
        },
      );
      api.define(
        { method: 'get', path: '/table', tag: 'Test', guard: guard.public, summary: 'csv', response: csv('A table'), errors: [] },
        () => ({
          filename: 'people.csv',
          columns: [
            { key: 'name', header: 'name' },
            { key: 'note', header: 'note' },
          ],
          rows: [{ name: 'Sara, "S"', note: '=1+1' }],
          truncated: true,
        }),
      );
    },
  });
});
afterAll(async () => {
  routes.stop();
  await t.close();
});

const app = () => routes.app;

async function userWith(role: string, areas: { view?: string[]; manage?: string[] } = {}): Promise<{ token: string; userId: string }> {
  const user = await signUp(t);
  await t.db.query('update users set app_role = $2, managed_areas = $3, managed_areas_write = $4 where id = $1', [
    user.userId,
    role,
    areas.view ?? null,
    areas.manage ?? null,
  ]);
  return user;
}

async function companyMember(status: CompanyStatus, role: CompanyRole) {
  const user = await userWith('b2b_admin');
  const companyId = await insertCompany(t.db, status);
  await joinCompany(t.db, companyId, user.userId, role);
  return { ...user, companyId };
}

const call = (name: string, token?: string) => {
  const req = request(app()).get(`/guarded/${name}`);
  return token ? req.set(bearer(token)) : req;
};

describe('guards', () => {
  it('public lets anyone in', async () => {
    const res = await call('public');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, caller: null, companyId: null });
  });

  it('every other guard answers AUTH_REQUIRED without a token, and with a bad one', async () => {
    for (const name of Object.keys(GUARDED).filter((n) => n !== 'public')) {
      expect([name, (await call(name)).status, errorCode(await call(name))]).toEqual([name, 401, 'AUTH_REQUIRED']);
      expect(errorCode(await call(name, 'not-a-token'))).toBe('AUTH_REQUIRED');
    }
  });

  it('session lets any signed-in user in and hands the handler the caller', async () => {
    const user = await userWith('end_user');
    expect((await call('session', user.token)).body).toEqual({ ok: true, caller: user.userId, companyId: null });
  });

  it('super_admin: only super_admin; everyone else AUTH_FORBIDDEN 403', async () => {
    expect((await call('super-admin', (await userWith('super_admin')).token)).status).toBe(200);
    for (const role of ['end_user', 'admin', 'b2b_admin', 'support']) {
      const res = await call('super-admin', (await userWith(role, { view: ['b2b'], manage: ['b2b'] })).token);
      expect([role, res.status, errorCode(res)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
    }
  });

  it('compliance: only super_admin; everyone else FORBIDDEN with status 401', async () => {
    expect((await call('compliance', (await userWith('super_admin')).token)).status).toBe(200);
    for (const role of ['end_user', 'admin', 'activation_officer']) {
      const res = await call('compliance', (await userWith(role)).token);
      expect([role, res.status, errorCode(res)]).toEqual([role, 401, 'FORBIDDEN']);
    }
  });

  it('staff area: super_admin passes view and manage; admin needs the area in managedAreas (view) or managedAreasWrite (manage)', async () => {
    const superAdmin = await userWith('super_admin');
    const viewer = await userWith('admin', { view: ['b2b'] });
    const manager = await userWith('admin', { view: ['b2b'], manage: ['b2b'] });
    const noArea = await userWith('admin', { view: ['store'], manage: ['store'] });
    expect((await call('staff-view', superAdmin.token)).status).toBe(200);
    expect((await call('staff-manage', superAdmin.token)).status).toBe(200);
    expect((await call('staff-view', viewer.token)).status).toBe(200);
    expect(errorCode(await call('staff-manage', viewer.token))).toBe('AUTH_FORBIDDEN');
    expect((await call('staff-manage', manager.token)).status).toBe(200);
    expect(errorCode(await call('staff-view', noArea.token))).toBe('AUTH_FORBIDDEN');
  });

  it('staff area checks the role first: a b2b_admin holding the b2b area never passes', async () => {
    const external = await userWith('b2b_admin', { view: ['b2b'], manage: ['b2b'] });
    const endUser = await userWith('end_user', { view: ['b2b'], manage: ['b2b'] });
    for (const name of ['staff-view', 'staff-manage']) {
      for (const user of [external, endUser]) {
        const res = await call(name, user.token);
        expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
      }
    }
  });

  it('staff areas are read from the database on every request, not from the session', async () => {
    const admin = await userWith('admin', { view: ['b2b'] });
    expect((await call('staff-view', admin.token)).status).toBe(200);
    await t.db.query('update users set managed_areas = null where id = $1', [admin.userId]);
    expect(errorCode(await call('staff-view', admin.token))).toBe('AUTH_FORBIDDEN');
    await t.db.query(`update users set managed_areas = '{b2b}', managed_areas_write = '{b2b}' where id = $1`, [admin.userId]);
    expect((await call('staff-manage', admin.token)).status).toBe(200);
  });

  it('portal: role b2b_admin only, with or without a company', async () => {
    expect((await call('portal', (await userWith('b2b_admin')).token)).status).toBe(200);
    for (const role of ['end_user', 'super_admin', 'admin']) {
      expect(errorCode(await call('portal', (await userWith(role)).token))).toBe('AUTH_FORBIDDEN');
    }
  });

  it('company: members read and admins write an approved company; the company comes from the membership table', async () => {
    const admin = await companyMember('approved', 'admin');
    const member = await companyMember('approved', 'member');
    expect((await call('company-read', admin.token)).body).toEqual({ ok: true, caller: admin.userId, companyId: admin.companyId });
    expect(typed<z.infer<typeof Echo>>(await call('company-write', admin.token)).body.companyId).toBe(admin.companyId);
    expect(typed<z.infer<typeof Echo>>(await call('company-read', member.token)).body.companyId).toBe(member.companyId);
    const write = await call('company-write', member.token);
    expect([write.status, errorCode(write)]).toEqual([403, 'AUTH_FORBIDDEN']);
  });

  it('company: no membership or another role is AUTH_FORBIDDEN; an unapproved company is an application error', async () => {
    expect(errorCode(await call('company-read', (await userWith('b2b_admin')).token))).toBe('AUTH_FORBIDDEN');
    expect(errorCode(await call('company-read', (await userWith('super_admin')).token))).toBe('AUTH_FORBIDDEN');
    for (const [status, code] of [
      ['pending', 'COMPANY_NOT_APPROVED'],
      ['suspended', 'COMPANY_SUSPENDED'],
      ['rejected', 'COMPANY_REJECTED'],
    ] as const) {
      const admin = await companyMember(status, 'admin');
      for (const name of ['company-read', 'company-write']) {
        const res = await call(name, admin.token);
        expect([status, name, res.status, errorCode(res)]).toEqual([status, name, 403, code]);
      }
    }
  });

  it('documents each guard: security, and the 401/403 codes it can answer', async () => {
    const doc = (await request(app()).get('/openapi.json')).body as {
      paths: Record<
        string,
        { get: { security: unknown[]; responses: Record<string, { content: { 'application/json': { schema: unknown } } }> } }
      >;
    };
    const codes = (name: string, status: string) =>
      (
        doc.paths[`/guarded/${name}`].get.responses[status]?.content['application/json'].schema as {
          properties: { error: { properties: { code: { enum: string[] } } } };
        }
      )?.properties.error.properties.code.enum;
    expect(doc.paths['/guarded/public'].get.security).toEqual([]);
    expect(doc.paths['/guarded/session'].get.security).toEqual([{ bearer: [] }, { cookie: [] }]);
    expect(codes('public', '401')).toBeUndefined();
    expect(codes('compliance', '401')).toEqual(expect.arrayContaining(['AUTH_REQUIRED', 'FORBIDDEN']));
    expect(codes('staff-view', '403')).toEqual(['AUTH_BLOCKLISTED', 'AUTH_FORBIDDEN']);
    expect(codes('company-write', '403')).toEqual([
      'AUTH_BLOCKLISTED',
      'AUTH_FORBIDDEN',
      'COMPANY_NOT_APPROVED',
      'COMPANY_SUSPENDED',
      'COMPANY_REJECTED',
    ]);
  });
});

describe('typed input', () => {
  it('hands the handler parsed params, query and body', async () => {
    const res = await request(app()).post('/things/abc?n=21').send({ name: 'x' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 'abc', n: 42, name: 'x' });
  });

  it('answers one VALIDATION_ERROR listing every broken part', async () => {
    const res = await request(app()).post('/things/ABC?n=x').send({ name: '', extra: 1 });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect((res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path).sort()).toEqual([
      'extra',
      'id',
      'n',
      'name',
    ]);
  });

  it('refuses a missing body and a body that is not JSON, instead of reading them as {}', async () => {
    const missing = await request(app()).post('/things/abc?n=1');
    const text = await request(app()).post('/things/abc?n=1').set('Content-Type', 'text/plain').send('name=x');
    const malformed = await request(app()).post('/things/abc?n=1').set('Content-Type', 'application/json').send('{"name":');
    for (const res of [missing, text, malformed]) {
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

describe('answers are checked against the document', () => {
  it('a body that breaks its schema never reaches the client: INTERNAL_ERROR, and the violation is logged', async () => {
    const before = routes.violations.length;
    const res = await request(app()).get('/drift/body');
    expect([res.status, errorCode(res)]).toEqual([500, 'INTERNAL_ERROR']);
    expect(JSON.stringify(res.body)).not.toContain('three');
    expect(routes.violations.slice(before)).toEqual([
      { route: 'GET /drift/{kind}', status: 200, problems: [expect.stringContaining('/count must be integer')] },
    ]);
    expect(logLines.some((l) => l.includes('answer breaks the API contract'))).toBe(true);
  });

  it('a field the document does not list is a violation (a leaked column never reaches the client)', async () => {
    const before = routes.violations.length;
    const res = await request(app()).get('/drift/extra');
    expect([res.status, JSON.stringify(res.body).includes('leaked')]).toEqual([500, false]);
    expect(routes.violations.slice(before)).toEqual([
      { route: 'GET /drift/{kind}', status: 200, problems: ['body must NOT have additional properties'] },
    ]);
  });

  it('a status the route does not declare is a violation too', async () => {
    const before = routes.violations.length;
    const res = await request(app()).get('/drift/status');
    expect(res.status).toBe(500);
    expect(routes.violations.slice(before)[0]).toMatchObject({ status: 202, problems: ['status 202 is not declared for this route'] });
  });

  it('an answer the handler serialized itself is sent as it is, and checked as parsed', async () => {
    const before = routes.violations.length;
    const res = await request(app()).get('/drift/serialized');
    expect([res.status, res.headers['content-type'], res.text]).toEqual([200, 'application/json; charset=utf-8', '{"count":4}']);
    expect((await request(app()).get('/drift/serialized-bad')).status).toBe(500);
    expect(routes.violations.slice(before)).toEqual([
      { route: 'GET /drift/{kind}', status: 200, problems: [expect.stringContaining('/count must be integer')] },
    ]);
  });

  it('a declared answer passes: success, and a declared error', async () => {
    const before = routes.violations.length;
    expect((await request(app()).get('/drift/fine')).body).toEqual({ count: 3 });
    expect((await request(app()).get('/drift/nope')).status).toBe(400);
    expect((await request(app()).get('/drift/code')).status).toBe(500);
    expect(routes.violations.slice(before)).toEqual([]);
  });

  it('CSV answers: RFC 4180, formula-safe, attachment names and X-Truncated', async () => {
    const res = await request(app()).get('/table');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=people.csv');
    expect(res.headers['x-truncated']).toBe('true');
    expect(res.text).toBe('name,note\r\n"Sara, ""S""",\'=1+1\r\n');
  });
});

describe('methods and paths', () => {
  it('a method the path does not have answers 405 with Allow and the envelope, in both languages', async () => {
    for (const [method, path, allow] of [
      ['post', '/guarded/public', 'GET, HEAD, OPTIONS'],
      ['delete', '/things/abc', 'OPTIONS, POST'],
      ['put', '/drift/body', 'GET, HEAD, OPTIONS'],
    ] as const) {
      const res = await request(app())[method](path);
      expect([method, path, res.status, res.headers.allow, errorCode(res)]).toEqual([method, path, 405, allow, 'METHOD_NOT_ALLOWED']);
    }
    const ar = await request(app()).patch('/guarded/public').set('Accept-Language', 'ar');
    expect(ar.status).toBe(405);
    expect((ar.body as { error: { message: string } }).error.message).toMatch(/[\u0600-\u06FF]/);
  });

  it('OPTIONS answers 204 with the same Allow; on an unknown path it is NOT_FOUND', async () => {
    const res = await request(app()).options('/things/abc');
    expect([res.status, res.headers.allow, res.text]).toEqual([204, 'OPTIONS, POST', '']);
    expect([(await request(app()).options('/nothing')).status]).toEqual([404]);
  });

  it('an unknown path stays NOT_FOUND', async () => {
    const res = await request(app()).get('/nothing/here');
    expect([res.status, errorCode(res), res.headers.allow]).toEqual([404, 'NOT_FOUND', undefined]);
  });
});
