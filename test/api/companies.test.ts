import request from 'supertest';
import type { z } from 'zod';
import type { MyCompanyResponse, RegisteredCompanyResponse, CompanyWrapped } from '../../src/companies/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import {
  companyAdmin,
  companyPerson,
  fakeCompanyRuns,
  newCrNumber,
  registrationBody,
  signInAs,
  type Caller,
} from '../helpers/company-routes';
import { errorOf, typed, type ErrorBody } from '../helpers/responses';

// The portal's own company (spec "Portal: company"): GET and POST /b2b/company for any b2b_admin,
// PATCH /b2b/company/payment-mode for the admin of an approved company.
let t: TestApp;
const runs = fakeCompanyRuns(() => t.db);
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs } });
});
afterAll(() => t.close());

const mine = async (token?: string, lang?: string) => {
  const req = request(t.app).get('/b2b/company');
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<z.infer<typeof MyCompanyResponse>>(await req);
};
const register = async (token: string | undefined, body: unknown, lang?: string) => {
  const req = request(t.app).post('/b2b/company');
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<z.infer<typeof RegisteredCompanyResponse>>(await req.send(body as object));
};
const setMode = async (token: string | undefined, body: unknown, lang?: string) => {
  const req = request(t.app).patch('/b2b/company/payment-mode');
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<z.infer<typeof CompanyWrapped>>(await req.send(body as object));
};
const issuePaths = (res: { body?: unknown }) => (errorOf<{ path: string }[]>(res).details ?? []).map((d) => d.path);
const companiesWithCr = async (cr: string) =>
  (await t.db.query<{ n: number }>('select count(*)::int as n from companies where cr_number = $1', [cr]))[0].n;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /b2b/company', () => {
  it('answers null company and role for an invited b2b_admin who has not registered', async () => {
    const invited = await signInAs(t, 'b2b_admin');
    const res = await mine(invited.token);
    expect([res.status, res.body]).toEqual([200, { data: { company: null, role: null } }]);
  });

  it.each(['approved', 'pending', 'suspended', 'rejected'] as const)(
    'answers the company of its admin in any status (%s)',
    async (status) => {
      const admin = await companyAdmin(t, status);
      const res = await mine(admin.token);
      expect(res.status).toBe(200);
      expect(res.body.data.role).toBe('admin');
      expect(res.body.data.company).toMatchObject({ id: admin.companyId, status, contactEmail: 'sara@acme.example' });
    },
  );

  it('answers a member their company with role member, also for an unapproved company', async () => {
    const admin = await companyAdmin(t, 'pending');
    const member = await companyPerson(t, admin.companyId, 'member');
    const res = await mine(member.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ role: 'member', company: { id: admin.companyId, status: 'pending' } });
  });

  it('is for b2b_admin only: no session 401, every other role 403, in both languages', async () => {
    expect([(await mine()).status, errorCode(await mine())]).toEqual([401, 'AUTH_REQUIRED']);
    for (const role of ['end_user', 'support', 'admin', 'super_admin', 'activation_officer'] as const) {
      const caller = await signInAs(t, role, { view: ['b2b'], manage: ['b2b'] });
      const res = await mine(caller.token);
      expect([role, res.status, errorCode(res)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
    }
    const user = await signInAs(t, 'end_user');
    expect(errorOf(await mine(user.token, 'ar')).message).toBe(errorCodes.AUTH_FORBIDDEN.ar);
    expect(errorOf(await mine(user.token, 'en')).message).toBe(errorCodes.AUTH_FORBIDDEN.en);
  });
});

describe('POST /b2b/company', () => {
  let caller: Caller;
  beforeEach(async () => {
    caller = await signInAs(t, 'b2b_admin');
  });

  it('creates the company pending with the caller as admin, contact data encrypted, and starts its run', async () => {
    const body = registrationBody({ contactEmail: 'Omar.Admin@Example.COM', contactPhone: '+14155550123' });
    const res = await register(caller.token, body);
    expect(res.status).toBe(201);
    const company = res.body.data.company;
    expect(res.body).toEqual({
      data: {
        role: 'admin',
        company: {
          id: company.id,
          crNumber: body.crNumber,
          name: 'Acme Trading',
          contactName: 'Sara Ali',
          contactEmail: 'omar.admin@example.com',
          contactPhone: '+14155550123',
          status: 'pending',
          paymentMode: null,
          approvedBy: null,
          approvedAt: null,
          createdAt: t.clock().toISOString(),
          updatedAt: t.clock().toISOString(),
        },
      },
    });
    expect(company.createdAt).toMatch(ISO);
    expect(runs.started).toContain(company.id);

    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    const [row] = await t.db.query<Record<string, string>>(
      `select contact_email_encrypted, contact_email_hash, contact_phone_encrypted, contact_phone_hash, status from companies where id = $1`,
      [company.id],
    );
    expect(row.contact_email_encrypted).not.toContain('omar');
    expect(cipher.decrypt(row.contact_email_encrypted)).toBe('omar.admin@example.com');
    expect(row.contact_email_hash).toBe(cipher.lookupHash('omar.admin@example.com'));
    expect(row.contact_phone_encrypted).not.toContain('4155550123');
    expect(cipher.decrypt(row.contact_phone_encrypted)).toBe('+14155550123');
    expect(row.contact_phone_hash).toBe(cipher.lookupHash('+14155550123'));
    expect(await t.db.query('select user_id, role from company_users where company_id = $1', [company.id])).toEqual([
      { user_id: caller.userId, role: 'admin' },
    ]);
    // Now the caller reads it back.
    expect((await mine(caller.token)).body).toEqual({ data: { company, role: 'admin' } });
  });

  it('never stores or answers inKsa', async () => {
    const res = await register(caller.token, registrationBody({ inKsa: false, crNumber: 'GB-0001-' + newCrNumber() }));
    expect(res.status).toBe(201);
    expect(res.body.data.company).not.toHaveProperty('inKsa');
    const columns = await t.db.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = 'companies' and column_name ilike '%ksa%'`,
    );
    expect(columns).toEqual([]);
  });

  describe('CR number', () => {
    it.each([
      ['9 digits', '123456789'],
      ['11 digits', '12345678901'],
      ['letters', '12345abcde'],
      ['padded', ' 1234567890'],
      ['Arabic-Indic digits', '١٢٣٤٥٦٧٨٩٠'],
      ['empty', ''],
    ])('in KSA is exactly 10 digits: %s is refused', async (_what, crNumber) => {
      const res = await register(caller.token, registrationBody({ inKsa: true, crNumber }));
      expect([res.status, errorCode(res), issuePaths(res)]).toEqual([400, 'VALIDATION_ERROR', ['crNumber']]);
    });

    it.each([
      ['2 characters', 'AB'],
      ['2 characters once trimmed', '   AB   '],
      ['31 characters', 'X'.repeat(31)],
      ['blank', '      '],
      ['a NUL', 'AB\u0000C'],
    ])('elsewhere is 3-30 trimmed characters: %s is refused', async (_what, crNumber) => {
      const res = await register(caller.token, registrationBody({ inKsa: false, crNumber }));
      expect([res.status, errorCode(res), issuePaths(res)]).toEqual([400, 'VALIDATION_ERROR', ['crNumber']]);
    });

    it('elsewhere is stored trimmed; 3 and 30 characters pass, and so do 10 digits', async () => {
      const suffix = newCrNumber();
      const padded = await register(caller.token, registrationBody({ inKsa: false, crNumber: `  UK ${suffix}\t` }));
      expect([padded.status, padded.body.data.company.crNumber]).toEqual([201, `UK ${suffix}`]);
      const thirty = `${suffix}-${'Ü'.repeat(19)}`;
      expect([...thirty]).toHaveLength(30);
      const other = await signInAs(t, 'b2b_admin');
      expect((await register(other.token, registrationBody({ inKsa: false, crNumber: thirty }))).status).toBe(201);
      // Each test file has a database of its own: a 3-character number is free here.
      const third = await signInAs(t, 'b2b_admin');
      expect((await register(third.token, registrationBody({ inKsa: false, crNumber: 'Q-9' }))).status).toBe(201);
      const fourth = await signInAs(t, 'b2b_admin');
      expect((await register(fourth.token, registrationBody({ inKsa: false, crNumber: newCrNumber() }))).status).toBe(201);
    });

    it('is unique: a second registration gets COMPANY_CR_EXISTS (also after trimming), in both languages', async () => {
      const cr = `AE-${newCrNumber()}`;
      expect((await register(caller.token, registrationBody({ inKsa: false, crNumber: cr }))).status).toBe(201);
      const other = await signInAs(t, 'b2b_admin');
      const again = await register(other.token, registrationBody({ inKsa: false, crNumber: ` ${cr} ` }));
      expect([again.status, errorCode(again), errorOf(again).message]).toEqual([409, 'COMPANY_CR_EXISTS', errorCodes.COMPANY_CR_EXISTS.en]);
      const ar = await register(other.token, registrationBody({ inKsa: false, crNumber: cr }), 'ar');
      expect([ar.status, errorOf(ar).message]).toEqual([409, errorCodes.COMPANY_CR_EXISTS.ar]);
      // The refused caller kept nothing and may still register another company.
      expect((await mine(other.token)).body.data).toEqual({ company: null, role: null });
      expect((await register(other.token, registrationBody())).status).toBe(201);
    });

    it('two registrations racing on one CR number: one 201, one COMPANY_CR_EXISTS, one company', async () => {
      const cr = newCrNumber();
      const [a, b] = await Promise.all([signInAs(t, 'b2b_admin'), signInAs(t, 'b2b_admin')]);
      const answers = await Promise.all([
        register(a.token, registrationBody({ crNumber: cr })),
        register(b.token, registrationBody({ crNumber: cr })),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(answers.map((r) => errorCode(r)).filter(Boolean)).toEqual(['COMPANY_CR_EXISTS']);
      expect(await companiesWithCr(cr)).toBe(1);
      const [{ n }] = await t.db.query<{ n: number }>(`select count(*)::int as n from company_users where user_id in ($1, $2)`, [
        a.userId,
        b.userId,
      ]);
      expect(n).toBe(1);
    });
  });

  describe('fields', () => {
    it.each([
      ['name', { name: '' }],
      ['name', { name: '   ' }],
      ['name', { name: 'N'.repeat(256) }],
      ['contactName', { contactName: '' }],
      ['contactName', { contactName: 'N'.repeat(256) }],
      ['contactEmail', { contactEmail: 'not-an-email' }],
      ['contactEmail', { contactEmail: `${'a'.repeat(250)}@x.com` }],
      ['contactPhone', { contactPhone: '0501234567' }],
      ['contactPhone', { contactPhone: '+12345' }],
      ['contactPhone', { contactPhone: '+9665012345678901' }],
      ['inKsa', { inKsa: 'true' }],
      ['inKsa', { inKsa: undefined }],
      ['crNumber', { crNumber: 1234567890 }],
      ['crNumber', { crNumber: undefined }],
      ['extra', { extra: 1 }],
    ])('refuses a bad %s: VALIDATION_ERROR on that field, nothing written', async (path, override) => {
      const body = registrationBody(override);
      const res = await register(caller.token, body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(issuePaths(res)).toContain(path);
      expect((await mine(caller.token)).body.data.company).toBeNull();
    });

    it('takes names of 1 and 255 characters (stored trimmed) and a phone of any country', async () => {
      const res = await register(
        caller.token,
        registrationBody({ name: `${'ع'.repeat(254)} `, contactName: 'A', contactPhone: '+8613800138000' }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data.company).toMatchObject({ name: 'ع'.repeat(254), contactName: 'A', contactPhone: '+8613800138000' });
    });

    it('refuses a missing or non-JSON body', async () => {
      const res = await request(t.app).post('/b2b/company').set(bearer(caller.token)).set('Content-Type', 'text/plain').send('x');
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    });
  });

  it('refuses a caller who already belongs to a company: COMPANY_ALREADY_REGISTERED (admins and members), in both languages', async () => {
    expect((await register(caller.token, registrationBody())).status).toBe(201);
    const again = await register(caller.token, registrationBody());
    expect([again.status, errorCode(again)]).toEqual([409, 'COMPANY_ALREADY_REGISTERED']);
    const ar = await register(caller.token, registrationBody(), 'ar');
    expect(errorOf(ar).message).toBe(errorCodes.COMPANY_ALREADY_REGISTERED.ar);

    const owner = await companyAdmin(t, 'approved');
    const member = await companyPerson(t, owner.companyId, 'member');
    const cr = newCrNumber();
    const res = await register(member.token, registrationBody({ crNumber: cr }));
    expect([res.status, errorCode(res)]).toEqual([409, 'COMPANY_ALREADY_REGISTERED']);
    expect(await companiesWithCr(cr)).toBe(0);
  });

  it('one caller registering twice at once gets one company', async () => {
    const answers = await Promise.all([register(caller.token, registrationBody()), register(caller.token, registrationBody())]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.map((r) => errorCode(r)).filter(Boolean)).toEqual(['COMPANY_ALREADY_REGISTERED']);
    const [{ n }] = await t.db.query<{ n: number }>('select count(*)::int as n from company_users where user_id = $1', [caller.userId]);
    expect(n).toBe(1);
  });

  // Issue 20: "Company registration ... commit rows, then start their runs": now the rows and the run's
  // pending start commit together and the registration answers 201 whether or not Temporal took the start.
  it('keeps the company when the run cannot start: 201, its start pending for the relay', async () => {
    const other = await signInAs(t, 'b2b_admin');
    const cr = newCrNumber();
    runs.failNextStart();
    const res = await register(other.token, registrationBody({ crNumber: cr }));
    expect(res.status).toBe(201);
    expect(await companiesWithCr(cr)).toBe(1);
    expect(runs.started).not.toContain(res.body.data.company.id);
    expect((await mine(other.token)).body.data).toMatchObject({
      company: { id: res.body.data.company.id, status: 'pending' },
      role: 'admin',
    });
    const [start] = await t.db.query<{ started_at: unknown }>('select started_at from workflow_starts where workflow_id = $1', [
      `company:${res.body.data.company.id}`,
    ]);
    expect(start).toEqual({ started_at: null });
  });

  it('is for b2b_admin only: no session 401, every other role 403, nothing written', async () => {
    const cr = newCrNumber();
    const anonymous = await register(undefined, registrationBody({ crNumber: cr }));
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
    for (const role of ['end_user', 'support', 'admin', 'super_admin'] as const) {
      const other = await signInAs(t, role, { view: ['b2b'], manage: ['b2b'] });
      const res = await register(other.token, registrationBody({ crNumber: cr }));
      expect([role, res.status, errorCode(res)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
    }
    const ar = await register((await signInAs(t, 'end_user')).token, registrationBody({ crNumber: cr }), 'ar');
    expect(errorOf(ar).message).toBe(errorCodes.AUTH_FORBIDDEN.ar);
    expect(await companiesWithCr(cr)).toBe(0);
  });
});

describe('PATCH /b2b/company/payment-mode', () => {
  interface AuditRow {
    action: string;
    actor_user_id: string;
    company_id: string;
    details: Record<string, unknown>;
    ip: string | null;
    user_agent: string | null;
  }
  const audits = (companyId: string) =>
    t.db.query<AuditRow>(
      `select action, actor_user_id, company_id, details, ip, user_agent from audit_events
        where company_id = $1 and action = 'company.payment_mode_changed' order by created_at, id`,
      [companyId],
    );

  it('sets the mode from null and switches it freely; each change is audited with before and after', async () => {
    const admin = await companyAdmin(t, 'approved');
    const first = await setMode(admin.token, { paymentMode: 'prepaid' });
    expect(first.status).toBe(200);
    expect(first.body.data.company).toMatchObject({ id: admin.companyId, paymentMode: 'prepaid', status: 'approved' });
    t.clock.advance(1000);
    const second = await request(t.app)
      .patch('/b2b/company/payment-mode')
      .set(bearer(admin.token))
      .set('User-Agent', 'portal-test')
      .send({ paymentMode: 'flexible' });
    expect(second.status).toBe(200);
    expect((second.body as z.infer<typeof CompanyWrapped>).data.company.paymentMode).toBe('flexible');
    expect((await mine(admin.token)).body.data.company?.paymentMode).toBe('flexible');
    const rows = await audits(admin.companyId);
    expect(rows).toEqual([
      expect.objectContaining({ actor_user_id: admin.userId, details: { before: null, after: 'prepaid' } }),
      expect.objectContaining({ details: { before: 'prepaid', after: 'flexible' }, user_agent: 'portal-test' }),
    ]);
    expect(rows[1].ip).toMatch(/127\.0\.0\.1/);
  });

  it('the same mode again changes nothing and writes no audit row', async () => {
    const admin = await companyAdmin(t, 'approved');
    const set = await setMode(admin.token, { paymentMode: 'flexible' });
    t.clock.advance(1000);
    const same = await setMode(admin.token, { paymentMode: 'flexible' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(set.body);
    expect(await audits(admin.companyId)).toHaveLength(1);
  });

  it.each([
    [{ paymentMode: 'postpaid' }],
    [{ paymentMode: null }],
    [{}],
    [{ paymentMode: 'prepaid', companyId: '00000000-0000-0000-0000-000000000000' }],
  ])('refuses %j: VALIDATION_ERROR, nothing changed', async (body) => {
    const admin = await companyAdmin(t, 'approved');
    const res = await setMode(admin.token, body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await mine(admin.token)).body.data.company?.paymentMode).toBeNull();
  });

  it('is for the admin of an approved company: members and outsiders 403, unapproved companies their own code', async () => {
    const anonymous = await setMode(undefined, { paymentMode: 'prepaid' });
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
    const approved = await companyAdmin(t, 'approved');
    const member = await companyPerson(t, approved.companyId, 'member');
    const invited = await signInAs(t, 'b2b_admin');
    const cases: [string, Caller, number, string][] = [
      ['member', member, 403, 'AUTH_FORBIDDEN'],
      ['b2b_admin without a company', invited, 403, 'AUTH_FORBIDDEN'],
      ['admin of a pending company', await companyAdmin(t, 'pending'), 403, 'COMPANY_NOT_APPROVED'],
      ['admin of a suspended company', await companyAdmin(t, 'suspended'), 403, 'COMPANY_SUSPENDED'],
      ['admin of a rejected company', await companyAdmin(t, 'rejected'), 403, 'COMPANY_REJECTED'],
    ];
    for (const role of ['end_user', 'support', 'admin', 'super_admin'] as const) {
      cases.push([role, await signInAs(t, role, { view: ['b2b'], manage: ['b2b'] }), 403, 'AUTH_FORBIDDEN']);
    }
    for (const [who, caller, status, code] of cases) {
      const res = await setMode(caller.token, { paymentMode: 'prepaid' });
      expect([who, res.status, errorCode(res)]).toEqual([who, status, code]);
    }
    expect((await mine(member.token)).body.data.company?.paymentMode).toBeNull();
  });

  it('answers the company-status codes in both languages', async () => {
    for (const [status, code] of [
      ['pending', 'COMPANY_NOT_APPROVED'],
      ['suspended', 'COMPANY_SUSPENDED'],
      ['rejected', 'COMPANY_REJECTED'],
    ] as const) {
      const admin = await companyAdmin(t, status);
      const ar = typed<ErrorBody>(await setMode(admin.token, { paymentMode: 'prepaid' }, 'ar'));
      expect([ar.body.error.code, ar.body.error.message]).toEqual([code, errorCodes[code].ar]);
      const en = typed<ErrorBody>(await setMode(admin.token, { paymentMode: 'prepaid' }, 'en'));
      expect(en.body.error.message).toBe(errorCodes[code].en);
    }
  });
});
