import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { AdminUserList, AdminUserResponse } from '../../src/admin/user-schemas';
import type { SessionResponse, SignInResponse } from '../../src/auth/schemas';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, errorCode, eventually, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';
import { signUpSuperAdmin, superAdminApp } from '../helpers/staff';
import { untilWaitingOnLock } from '../helpers/db';

// Administration users (/admin/users, super_admin only): staff accounts with areas, audited.
const t = superAdminApp('Root');

type One = z.infer<typeof AdminUserResponse>;
type List = z.infer<typeof AdminUserList>;
/** Each change a second after the previous one, so the audit trail has an order. */
const tick = () => t.clock.advance(1000);
const create = async (body: object, token = t.admin.token, lang = 'en') =>
  tick() ?? typed<One>(await request(t.app).post('/admin/users').set(bearer(token)).set('Accept-Language', lang).send(body));
const patch = async (id: string, body: object, token = t.admin.token, lang = 'en') =>
  tick() ?? typed<One>(await request(t.app).patch(`/admin/users/${id}`).set(bearer(token)).set('Accept-Language', lang).send(body));
const list = async (query: Record<string, string>, token = t.admin.token) =>
  typed<List>(await request(t.app).get('/admin/users').query(query).set(bearer(token)));

let emailSeq = 0;
const newEmail = () => `staff${process.pid}.${(emailSeq += 1)}@Example.com`;

interface AuditRow {
  action: string;
  actor_user_id: string | null;
  details: Record<string, unknown>;
  user_agent: string | null;
}
const auditOf = (entityId: string) =>
  t.db.query<AuditRow>(
    `select action, actor_user_id, details, user_agent from audit_events where entity_type = 'user' and entity_id = $1 order by created_at, action`,
    [entityId],
  );

/** Login + verify-otp (mobile) for a phone account; the session token. */
async function signIn(app: TestApp, phone: string): Promise<string> {
  await request(app.app).post('/auth/login').send({ phone }).expect(200);
  const res = typed<z.infer<typeof SignInResponse>>(
    await request(app.app)
      .post('/auth/verify-otp')
      .set(MOBILE)
      .send({ phone, otp: lastCode(app, phone) }),
  );
  expect(res.status).toBe(200);
  return res.body.session.token!;
}

const sessionOf = async (app: TestApp, token: string) =>
  typed<z.infer<typeof SessionResponse>>(await request(app.app).get('/auth/session').set(bearer(token)));

describe('POST /admin/users', () => {
  it('creates an admin with areas (write implies view) who signs in by OTP; audited without contact data', async () => {
    const phone = newPhone();
    const email = newEmail();
    const res = await create({ appRole: 'admin', name: ' Areas Admin ', phone, email, managedAreasWrite: ['b2b'] });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(res.body).toEqual({
      data: {
        id: match.any(String),
        phone,
        email: email.toLowerCase(),
        name: 'Areas Admin',
        appRole: 'admin',
        isActive: true,
        managedAreas: ['b2b'],
        managedAreasWrite: ['b2b'],
        createdAt: t.clock().toISOString(),
      },
    });
    // Contact data is stored encrypted with keyed hashes, never in plain text.
    const [row] = await t.db.query<Record<string, unknown>>('select * from users where id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(phone);
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    expect(row).toMatchObject({ phone_hash: cipher.lookupHash(phone), email_hash: cipher.lookupHash(email.toLowerCase()) });
    expect(await auditOf(id)).toEqual([
      {
        action: 'admin_user.created',
        actor_user_id: t.admin.userId,
        details: { appRole: 'admin', managedAreas: ['b2b'], managedAreasWrite: ['b2b'] },
        user_agent: null,
      },
    ]);

    const token = await signIn(t, phone);
    const session = await sessionOf(t, token);
    expect(session.body.user).toMatchObject({ id, appRole: 'admin', managedAreas: ['b2b'], managedAreasWrite: ['b2b'] });
  });

  it('creates support, activation_officer and super_admin staff without areas', async () => {
    for (const appRole of ['support', 'activation_officer', 'super_admin']) {
      const res = await create({ appRole, name: appRole, email: newEmail() });
      expect([res.status, res.body.data.appRole, res.body.data.managedAreas, res.body.data.phone]).toEqual([201, appRole, null, null]);
    }
  });

  it('refuses what the schema refuses (VALIDATION_ERROR) and creates nothing', async () => {
    const before = await t.db.query('select count(*) from users');
    const cases: Array<[object, string]> = [
      [{ appRole: 'admin', name: 'No contact' }, 'phone'],
      [{ appRole: 'b2b_admin', name: 'X', email: newEmail() }, 'appRole'],
      [{ appRole: 'end_user', name: 'X', email: newEmail() }, 'appRole'],
      [{ appRole: 'support', name: 'X', phone: '+14155550100' }, 'phone'],
      [{ appRole: 'support', name: 'X', email: 'not-an-email' }, 'email'],
      [{ appRole: 'support', name: '   ', email: newEmail() }, 'name'],
      [{ appRole: 'support', name: 'x'.repeat(256), email: newEmail() }, 'name'],
      [{ appRole: 'support', name: 'X', email: newEmail(), managedAreas: ['b2b'] }, 'managedAreas'],
      [{ appRole: 'admin', name: 'X', email: newEmail(), managedAreas: ['billing'] }, 'managedAreas'],
      [{ appRole: 'admin', name: 'X', email: newEmail(), extra: true }, ''],
    ];
    for (const [body, path] of cases) {
      const res = await create(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(JSON.stringify(errorOf(res).details)).toContain(`"path":"${path}`);
    }
    expect(await t.db.query('select count(*) from users')).toEqual(before);
  });

  it('answers ADMIN_USER_PHONE_EXISTS / ADMIN_USER_EMAIL_EXISTS 409 (both languages) for a proven identifier', async () => {
    const taken = await signUp(t, { phone: newPhone(), email: newEmail().toLowerCase() });
    const phone = await create({ appRole: 'support', name: 'Dup', phone: taken.phone });
    expect([phone.status, errorCode(phone)]).toEqual([409, 'ADMIN_USER_PHONE_EXISTS']);
    const ar = await create({ appRole: 'support', name: 'Dup', phone: taken.phone }, t.admin.token, 'ar');
    expect(errorOf(ar).message).toBe('يوجد مستخدم مسجل برقم الجوال هذا');
    const email = await create({ appRole: 'support', name: 'Dup', email: taken.email!.toUpperCase() });
    expect([email.status, errorCode(email)]).toEqual([409, 'ADMIN_USER_EMAIL_EXISTS']);
    const arEmail = await create({ appRole: 'support', name: 'Dup', email: taken.email }, t.admin.token, 'ar');
    expect(errorOf(arEmail).message).toBe('يوجد مستخدم مسجل بهذا البريد الإلكتروني');
  });

  it('answers the same code when a racing insert wins after the lookup (the unique index decides)', async () => {
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    for (const kind of ['phone', 'email'] as const) {
      const value = kind === 'phone' ? newPhone() : newEmail().toLowerCase();
      const rival = await t.db.pool.connect();
      try {
        await rival.query('begin');
        await rival.query(`insert into users (id, name, ${kind}_hash, created_at, updated_at) values ($1, 'Rival', $2, now(), now())`, [
          randomUUID(),
          cipher.lookupHash(value),
        ]);
        // The request's lookup cannot see the uncommitted row; its insert waits on the index until the rival commits.
        const pending = create({ appRole: 'support', name: 'Racer', [kind]: value });
        await untilWaitingOnLock(t.db, 'insert into users%');
        await rival.query('commit');
        const res = await pending;
        expect([res.status, errorCode(res)]).toEqual([409, kind === 'phone' ? 'ADMIN_USER_PHONE_EXISTS' : 'ADMIN_USER_EMAIL_EXISTS']);
      } finally {
        rival.release();
      }
      expect(await t.db.query(`select name from users where ${kind}_hash = $1`, [cipher.lookupHash(value)])).toEqual([{ name: 'Rival' }]);
    }
  });

  // Faults are injected in the database itself: a temporary trigger makes one step fail, as a real outage would.
  it('answers ADMIN_USER_CREATE_FAILED 502 when the identity row cannot be written; nothing is kept', async () => {
    await t.db.query(`create function fail_identity() returns trigger language plpgsql as $$
      begin if new.name = 'Fault' then raise exception 'injected identity failure'; end if; return new; end $$`);
    await t.db.query('create trigger fail_identity before insert on users for each row execute function fail_identity()');
    try {
      const email = newEmail();
      const res = await create({ appRole: 'support', name: 'Fault', email }, t.admin.token, 'ar');
      expect([res.status, errorCode(res)]).toEqual([502, 'ADMIN_USER_CREATE_FAILED']);
      expect(errorOf(res).message).toBe('تعذر إنشاء المستخدم، يرجى المحاولة لاحقاً');
      expect(await t.db.query(`select id from users where name = 'Fault'`)).toEqual([]);
    } finally {
      await t.db.query('drop trigger fail_identity on users; drop function fail_identity()');
    }
  });

  it('answers ADMIN_USER_PROFILE_NOT_CREATED 502 when the profile fails after the identity row: the identity is rolled back', async () => {
    await t.db.query(`create function fail_profile() returns trigger language plpgsql as $$
      begin if new.action = 'admin_user.created' then raise exception 'injected profile failure'; end if; return new; end $$`);
    await t.db.query('create trigger fail_profile before insert on audit_events for each row execute function fail_profile()');
    const phone = newPhone();
    try {
      const res = await create({ appRole: 'admin', name: 'Orphan', phone, managedAreas: ['b2b'] });
      expect([res.status, errorCode(res)]).toEqual([502, 'ADMIN_USER_PROFILE_NOT_CREATED']);
      const ar = await create({ appRole: 'admin', name: 'Orphan', phone }, t.admin.token, 'ar');
      expect(errorOf(ar).message).toBe('تعذر إنشاء ملف المستخدم، يرجى المحاولة لاحقاً');
      expect(await t.db.query(`select id from users where name = 'Orphan'`)).toEqual([]);
    } finally {
      await t.db.query('drop trigger fail_profile on audit_events; drop function fail_profile()');
    }
    // Nothing orphaned holds the phone: the same creation now succeeds.
    expect((await create({ appRole: 'admin', name: 'Orphan', phone })).status).toBe(201);
  });
});

describe('GET /admin/users and /admin/users/:id', () => {
  it('lists staff only, newest first, paged, by role, and finds one person by exact phone or e-mail', async () => {
    const fresh = await createTestApp();
    try {
      const admin = await signUpSuperAdmin(fresh, 'Root2');
      await signUp(fresh, { name: 'Customer' });
      const made: string[] = [];
      const phone = newPhone();
      const email = newEmail();
      for (const [i, body] of [
        { appRole: 'support', name: 'S1', phone },
        { appRole: 'admin', name: 'A1', email },
        { appRole: 'support', name: 'S2', email: newEmail() },
      ].entries()) {
        fresh.clock.advance(60_000 * (i + 1));
        const res = await request(fresh.app).post('/admin/users').set(bearer(admin.token)).send(body);
        expect(res.status).toBe(201);
        made.push((res.body as One).data.id);
      }
      const get = async (q: Record<string, string>) =>
        typed<List>(await request(fresh.app).get('/admin/users').query(q).set(bearer(admin.token))).body.data;
      // The super_admin promoted by SQL is staff too; the customer is not.
      const all = await get({});
      expect(all.total).toBe(4);
      expect(all.users.map((u) => u.name)).toEqual(['S2', 'A1', 'S1', 'Root2']);
      const page2 = await get({ limit: '2', page: '2' });
      expect([page2.users.map((u) => u.name), page2.page, page2.limit, page2.total]).toEqual([['S1', 'Root2'], 2, 2, 4]);
      expect((await get({ role: 'support' })).users.map((u) => u.id)).toEqual([made[2], made[0]]);
      expect((await get({ phone })).users.map((u) => u.id)).toEqual([made[0]]);
      expect((await get({ email: email.toUpperCase() })).users.map((u) => u.id)).toEqual([made[1]]);
      expect(await get({ email: newEmail() })).toEqual({ users: [], total: 0, page: 1, limit: 20 });
    } finally {
      await fresh.close();
    }
  });

  it('refuses bad filters with VALIDATION_ERROR', async () => {
    const bad: Record<string, string>[] = [
      { role: 'end_user' },
      { role: 'b2b_admin' },
      { phone: '0501' },
      { email: 'x' },
      { limit: '101' },
      { page: '0' },
    ];
    for (const q of bad) {
      const res = await list(q);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('reads one staff user; an end user, an unknown or a malformed id is ADMIN_USER_NOT_FOUND (both languages)', async () => {
    const made = await create({ appRole: 'support', name: 'Readable', email: newEmail() });
    const one = typed<One>(await request(t.app).get(`/admin/users/${made.body.data.id}`).set(bearer(t.admin.token)));
    expect(one.body).toEqual(made.body);
    const customer = await signUp(t);
    for (const id of [customer.userId, randomUUID(), 'not-a-uuid']) {
      const res = await request(t.app).get(`/admin/users/${id}`).set(bearer(t.admin.token));
      expect([res.status, errorCode(res)]).toEqual([404, 'ADMIN_USER_NOT_FOUND']);
    }
    const ar = await request(t.app).get(`/admin/users/${randomUUID()}`).set(bearer(t.admin.token)).set('Accept-Language', 'ar');
    expect(errorOf(ar).message).toBe('لم يتم العثور على المستخدم');
  });
});

describe('PATCH /admin/users/:id', () => {
  it('replaces the lists given (write implies view), renames, and audits each change with before/after', async () => {
    const made = await create({ appRole: 'admin', name: 'Viewer', email: newEmail(), managedAreas: ['b2b'] });
    const id = made.body.data.id;
    const granted = await patch(id, { managedAreasWrite: ['b2b'] });
    expect(granted.body.data).toMatchObject({ managedAreas: ['b2b'], managedAreasWrite: ['b2b'] });
    const revoked = await patch(id, { managedAreas: [], managedAreasWrite: [], name: 'Nobody' });
    expect(revoked.body.data).toMatchObject({ name: 'Nobody', managedAreas: [], managedAreasWrite: [] });
    const [row] = await t.db.query('select managed_areas, managed_areas_write from users where id = $1', [id]);
    expect(row).toEqual({ managed_areas: [], managed_areas_write: [] });
    // The same lists again change nothing and audit nothing.
    await patch(id, { managedAreas: [] });
    expect((await auditOf(id)).map((a) => [a.action, a.details])).toEqual([
      ['admin_user.created', { appRole: 'admin', managedAreas: ['b2b'], managedAreasWrite: [] }],
      [
        'admin_user.areas_updated',
        { before: { managedAreas: ['b2b'], managedAreasWrite: [] }, after: { managedAreas: ['b2b'], managedAreasWrite: ['b2b'] } },
      ],
      [
        'admin_user.areas_updated',
        { before: { managedAreas: ['b2b'], managedAreasWrite: ['b2b'] }, after: { managedAreas: [], managedAreasWrite: [] } },
      ],
      ['admin_user.renamed', { before: 'Viewer', after: 'Nobody' }],
    ]);
  });

  it('refuses areas for a non-admin (ADMIN_USER_AREAS_NOT_ALLOWED), an empty body and unknown areas; unknown users are ADMIN_USER_NOT_FOUND', async () => {
    const support = await create({ appRole: 'support', name: 'Support', email: newEmail() });
    const areas = await patch(support.body.data.id, { managedAreas: ['b2b'] }, t.admin.token, 'ar');
    expect([areas.status, errorCode(areas), errorOf(areas).message]).toEqual([
      409,
      'ADMIN_USER_AREAS_NOT_ALLOWED',
      'لا يمكن تعيين المجالات المُدارة إلا لمستخدمي الإدارة',
    ]);
    for (const body of [{}, { managedAreas: ['billing'] }, { name: '' }]) {
      const res = await patch(support.body.data.id, body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const missing = await patch(randomUUID(), { name: 'X' }, t.admin.token, 'ar');
    expect([missing.status, errorCode(missing), errorOf(missing).message]).toEqual([
      404,
      'ADMIN_USER_NOT_FOUND',
      'لم يتم العثور على المستخدم',
    ]);
    const customer = await signUp(t);
    expect(errorCode(await patch(customer.userId, { name: 'X' }))).toBe('ADMIN_USER_NOT_FOUND');
  });

  it('takes effect on the next request: the staff guard and GET /auth/session (session cache on)', async () => {
    const cached = await createTestApp({ env: { SESSION_CACHE_SECONDS: '60' } });
    try {
      const admin = await signUpSuperAdmin(cached, 'Root3');
      const phone = newPhone();
      const made = await request(cached.app)
        .post('/admin/users')
        .set(bearer(admin.token))
        .send({ appRole: 'admin', name: 'Cached', phone, managedAreas: ['b2b'] });
      const id = (made.body as One).data.id;
      const token = await signIn(cached, phone);
      // Warm the cache: the listener connects in the background, then a second read is served from memory.
      await eventually(async () => {
        const spy = jest.spyOn(cached.db.pool, 'query');
        try {
          await sessionOf(cached, token);
          const before = spy.mock.calls.length;
          expect((await sessionOf(cached, token)).body.user.managedAreasWrite).toEqual([]);
          expect(spy.mock.calls.length).toBe(before);
        } finally {
          spy.mockRestore();
        }
      });
      const res = await request(cached.app)
        .patch(`/admin/users/${id}`)
        .set(bearer(admin.token))
        .send({ managedAreasWrite: ['b2b'] });
      expect(res.status).toBe(200);
      expect((await sessionOf(cached, token)).body.user).toMatchObject({ managedAreas: ['b2b'], managedAreasWrite: ['b2b'] });
      await request(cached.app).patch(`/admin/users/${id}`).set(bearer(admin.token)).send({ managedAreas: [], managedAreasWrite: [] });
      expect((await sessionOf(cached, token)).body.user).toMatchObject({ managedAreas: [], managedAreasWrite: [] });
    } finally {
      await cached.close();
    }
  });
});

describe('POST /admin/users/:id/deactivate', () => {
  it('revokes the live sessions through the deactivation trigger; repeating changes nothing; audited once', async () => {
    const phone = newPhone();
    const made = await create({ appRole: 'support', name: 'Leaver', phone });
    const id = made.body.data.id;
    const token = await signIn(t, phone);
    expect((await sessionOf(t, token)).status).toBe(200);
    const res = typed<One>(await request(t.app).post(`/admin/users/${id}/deactivate`).set(bearer(t.admin.token)));
    expect([res.status, res.body.data.isActive]).toEqual([200, false]);
    expect(await t.db.query('select id from sessions where user_id = $1 and revoked_at is null', [id])).toEqual([]);
    const after = await sessionOf(t, token);
    expect([after.status, errorCode(after)]).toEqual([401, 'AUTH_ACCOUNT_DEACTIVATED']);
    const again = await request(t.app).post(`/admin/users/${id}/deactivate`).set(bearer(t.admin.token));
    expect(again.status).toBe(200);
    expect((await auditOf(id)).filter((a) => a.action === 'admin_user.deactivated').map((a) => a.details)).toEqual([
      { appRole: 'support', revokedSessions: 1 },
    ]);
  });

  it('refuses your own account (AUTH_FORBIDDEN) and unknown users (ADMIN_USER_NOT_FOUND, both languages)', async () => {
    const self = await request(t.app).post(`/admin/users/${t.admin.userId}/deactivate`).set(bearer(t.admin.token));
    expect([self.status, errorCode(self)]).toEqual([403, 'AUTH_FORBIDDEN']);
    const missing = await request(t.app)
      .post(`/admin/users/${randomUUID()}/deactivate`)
      .set(bearer(t.admin.token))
      .set('Accept-Language', 'ar');
    expect([missing.status, errorCode(missing), errorOf(missing).message]).toEqual([
      404,
      'ADMIN_USER_NOT_FOUND',
      'لم يتم العثور على المستخدم',
    ]);
  });
});

describe('DELETE /admin/users/:id', () => {
  it('removes the account and its sessions, audited; the audit rows it wrote keep no actor', async () => {
    const phone = newPhone();
    const made = await create({ appRole: 'super_admin', name: 'Temp root', phone });
    const id = made.body.data.id;
    const token = await signIn(t, phone);
    // The account acts once (an audited change), then is removed.
    const acted = await create({ appRole: 'support', name: 'Made by temp', email: newEmail() }, token);
    tick();
    const res = await request(t.app).delete(`/admin/users/${id}`).set(bearer(t.admin.token));
    expect([res.status, res.body]).toEqual([200, { data: { id, deleted: true } }]);
    expect(await t.db.query('select id from users where id = $1', [id])).toEqual([]);
    expect(await t.db.query('select id from sessions where user_id = $1', [id])).toEqual([]);
    expect(errorCode(await sessionOf(t, token))).toBe('AUTH_REQUIRED');
    expect((await auditOf(id)).map((a) => [a.action, a.actor_user_id, a.details])).toEqual([
      ['admin_user.created', t.admin.userId, { appRole: 'super_admin', managedAreas: null, managedAreasWrite: null }],
      ['admin_user.deleted', t.admin.userId, { appRole: 'super_admin', name: 'Temp root' }],
    ]);
    expect((await auditOf(acted.body.data.id)).map((a) => a.actor_user_id)).toEqual([null]);
    const gone = await request(t.app).delete(`/admin/users/${id}`).set(bearer(t.admin.token));
    expect([gone.status, errorCode(gone)]).toEqual([404, 'ADMIN_USER_NOT_FOUND']);
  });

  it('answers ADMIN_USER_DELETE_FAILED (HAS_RECORDS) for a user with orders, and removes nothing (both languages)', async () => {
    const made = await create({ appRole: 'activation_officer', name: 'Buyer', email: newEmail() });
    const id = made.body.data.id;
    await t.db.query(
      `insert into orders (id, user_id, status, total_halalas, currency, created_at, updated_at) values ($1, $2, 'pending_payment', 1000, 'SAR', now(), now())`,
      [randomUUID(), id],
    );
    const res = await request(t.app).delete(`/admin/users/${id}`).set(bearer(t.admin.token));
    expect([res.status, errorCode(res), errorOf(res).details]).toEqual([502, 'ADMIN_USER_DELETE_FAILED', { reason: 'HAS_RECORDS' }]);
    const ar = await request(t.app).delete(`/admin/users/${id}`).set(bearer(t.admin.token)).set('Accept-Language', 'ar');
    expect(errorOf(ar).message).toBe('تعذر حذف المستخدم، يرجى المحاولة لاحقاً');
    expect(await t.db.query('select name from users where id = $1', [id])).toEqual([{ name: 'Buyer' }]);
    expect((await auditOf(id)).map((a) => a.action)).toEqual(['admin_user.created']);
  });

  it('refuses your own account', async () => {
    const self = await request(t.app).delete(`/admin/users/${t.admin.userId}`).set(bearer(t.admin.token));
    expect([self.status, errorCode(self)]).toEqual([403, 'AUTH_FORBIDDEN']);
  });
});

describe('guards and neighbours', () => {
  it('every /admin/users route is super_admin only: 401 without a session, AUTH_FORBIDDEN for other roles (both languages)', async () => {
    const other = await signUp(t);
    const target = randomUUID();
    const routes: Array<[string, string, object?]> = [
      ['post', '/admin/users', { appRole: 'support', name: 'X', email: newEmail() }],
      ['get', '/admin/users'],
      ['get', `/admin/users/${target}`],
      ['patch', `/admin/users/${target}`, { name: 'X' }],
      ['post', `/admin/users/${target}/deactivate`],
      ['delete', `/admin/users/${target}`],
    ];
    for (const role of ['end_user', 'b2b_admin', 'support', 'activation_officer', 'admin']) {
      await t.db.query(`update users set app_role = $2, managed_areas = $3, managed_areas_write = $3 where id = $1`, [
        other.userId,
        role,
        role === 'admin' ? ['b2b'] : null,
      ]);
      for (const [method, path, body] of routes) {
        const call = (r: request.Test) => (body ? r.send(body) : r);
        const anonymous = await call(request(t.app)[method as 'get'](path));
        expect([path, anonymous.status, errorCode(anonymous)]).toEqual([path, 401, 'AUTH_REQUIRED']);
        const res = await call(request(t.app)[method as 'get'](path).set(bearer(other.token)).set('Accept-Language', 'ar'));
        expect([role, method, path, res.status, errorCode(res)]).toEqual([role, method, path, 403, 'AUTH_FORBIDDEN']);
        expect(errorOf(res).message).toBe('ليست لديك صلاحية لتنفيذ هذا الإجراء');
      }
    }
  });

  it('keeps POST /admin/users/:id/blocklist working on a staff user', async () => {
    const made = await create({ appRole: 'support', name: 'Blocked staff', email: newEmail() });
    const res = await request(t.app)
      .post(`/admin/users/${made.body.data.id}/blocklist`)
      .set(bearer(t.admin.token))
      .send({ reason: 'Test' });
    expect([res.status, (res.body as { data: { blocklisted: boolean } }).data.blocklisted]).toEqual([200, true]);
  });
});
