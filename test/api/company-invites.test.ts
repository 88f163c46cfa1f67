import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { CompanyInvite } from '../../src/companies/schemas';
import type { SessionResponse, SignInResponse } from '../../src/auth/schemas';
import { bearer, errorCode, lastCode, MOBILE, newPhone, signUp } from '../helpers/app';
import { insertCompany } from '../helpers/companies';
import { errorOf, typed } from '../helpers/responses';
import { superAdminApp } from '../helpers/staff';

// POST /admin/companies/invites: a super_admin provisions a company portal user (b2b_admin), audited.
const t = superAdminApp('Root');

type Invite = z.infer<typeof CompanyInvite>;
const invite = async (body: object, token = t.admin.token, lang = 'en') =>
  typed<Invite>(await request(t.app).post('/admin/companies/invites').set(bearer(token)).set('Accept-Language', lang).send(body));

let emailSeq = 0;
const newEmail = () => `invitee${process.pid}.${(emailSeq += 1)}@example.com`;

const membershipOf = (userId: string) => t.db.query('select company_id, role from company_users where user_id = $1', [userId]);
const auditOf = (userId: string) =>
  t.db.query<{ action: string; actor_user_id: string; company_id: string | null; details: unknown }>(
    `select action, actor_user_id, company_id, details from audit_events where entity_type = 'user' and entity_id = $1`,
    [userId],
  );

describe('POST /admin/companies/invites', () => {
  it('invites a first admin without a company: a b2b_admin who signs in and sees no company yet', async () => {
    const phone = newPhone();
    const res = await invite({ phone, name: ' First Admin ', role: 'admin' });
    expect(res.status).toBe(201);
    const id = res.body.data.user.id;
    expect(res.body).toEqual({
      data: {
        user: { id, phone, email: null, name: 'First Admin', role: 'b2b_admin', isActive: true, createdAt: t.clock().toISOString() },
        companyId: null,
        companyRole: 'admin',
      },
    });
    expect(await membershipOf(id)).toEqual([]);
    expect(await auditOf(id)).toEqual([
      {
        action: 'company.user_invited',
        actor_user_id: t.admin.userId,
        company_id: null,
        details: { companyRole: 'admin', companyId: null },
      },
    ]);

    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    const signIn = typed<z.infer<typeof SignInResponse>>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(MOBILE)
        .send({ phone, otp: lastCode(t, phone) }),
    );
    expect(signIn.body.user).toMatchObject({ id, appRole: 'b2b_admin' });
    const session = typed<z.infer<typeof SessionResponse>>(
      await request(t.app).get('/auth/session').set(bearer(signIn.body.session.token!)),
    );
    expect(session.body.user).toMatchObject({ appRole: 'b2b_admin', managedAreas: null });
  });

  it('invites a member (and an admin) into an existing company: the membership is created with the user', async () => {
    const companyId = await insertCompany(t.db, 'approved');
    const member = await invite({ email: newEmail().toUpperCase(), name: 'Viewer', role: 'member', companyId });
    expect(member.status).toBe(201);
    expect(member.body.data).toMatchObject({ companyId, companyRole: 'member', user: { phone: null, role: 'b2b_admin' } });
    expect(member.body.data.user.email).toBe(member.body.data.user.email!.toLowerCase());
    expect(await membershipOf(member.body.data.user.id)).toEqual([{ company_id: companyId, role: 'member' }]);
    expect(await auditOf(member.body.data.user.id)).toEqual([
      expect.objectContaining({ company_id: companyId, details: { companyRole: 'member', companyId } }) as unknown,
    ]);
    const admin = await invite({ phone: newPhone(), email: newEmail(), name: 'Second admin', role: 'admin', companyId });
    expect(await membershipOf(admin.body.data.user.id)).toEqual([{ company_id: companyId, role: 'admin' }]);
  });

  it('answers COMPANY_NOT_FOUND 404 for an unknown company (both languages), creating nobody', async () => {
    const email = newEmail();
    const res = await invite({ email, name: 'Lost', role: 'member', companyId: randomUUID() });
    expect([res.status, errorCode(res)]).toEqual([404, 'COMPANY_NOT_FOUND']);
    const ar = await invite({ email, name: 'Lost', role: 'admin', companyId: randomUUID() }, t.admin.token, 'ar');
    expect([ar.status, errorOf(ar).message]).toEqual([404, 'لم يتم العثور على الشركة']);
    expect(await t.db.query(`select id from users where name = 'Lost'`)).toEqual([]);
  });

  it('answers ADMIN_USER_PHONE_EXISTS / ADMIN_USER_EMAIL_EXISTS 409 (both languages)', async () => {
    const taken = await signUp(t, { phone: newPhone(), email: newEmail() });
    const phone = await invite({ phone: taken.phone, name: 'Dup', role: 'admin' });
    expect([phone.status, errorCode(phone)]).toEqual([409, 'ADMIN_USER_PHONE_EXISTS']);
    const email = await invite({ email: taken.email, name: 'Dup', role: 'admin' }, t.admin.token, 'ar');
    expect([email.status, errorCode(email), errorOf(email).message]).toEqual([
      409,
      'ADMIN_USER_EMAIL_EXISTS',
      'يوجد مستخدم مسجل بهذا البريد الإلكتروني',
    ]);
    // An invited user's identifiers are taken too.
    const first = await invite({ phone: newPhone(), name: 'Once', role: 'admin' });
    const again = await invite({ phone: first.body.data.user.phone, name: 'Twice', role: 'admin' });
    expect(errorCode(again)).toBe('ADMIN_USER_PHONE_EXISTS');
  });

  it('answers ADMIN_USER_PROFILE_NOT_CREATED 502 when the membership cannot be written: the user is rolled back', async () => {
    const companyId = await insertCompany(t.db, 'approved');
    await t.db.query(`create function fail_membership() returns trigger language plpgsql as $$
      begin raise exception 'injected membership failure'; end $$`);
    await t.db.query('create trigger fail_membership before insert on company_users for each row execute function fail_membership()');
    const phone = newPhone();
    try {
      const res = await invite({ phone, name: 'Half', role: 'member', companyId }, t.admin.token, 'ar');
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([
        502,
        'ADMIN_USER_PROFILE_NOT_CREATED',
        'تعذر إنشاء ملف المستخدم، يرجى المحاولة لاحقاً',
      ]);
      expect(await t.db.query(`select id from users where name = 'Half'`)).toEqual([]);
    } finally {
      await t.db.query('drop trigger fail_membership on company_users; drop function fail_membership()');
    }
    expect((await invite({ phone, name: 'Half', role: 'member', companyId })).status).toBe(201);
  });

  it('validates the body (VALIDATION_ERROR, both languages)', async () => {
    const companyId = await insertCompany(t.db, 'approved');
    const cases: Array<[object, string]> = [
      [{ name: 'No contact', role: 'admin' }, 'phone'],
      [{ phone: '+971501234567', name: 'X', role: 'admin' }, 'phone'],
      [{ email: 'bad', name: 'X', role: 'admin' }, 'email'],
      [{ email: newEmail(), name: '', role: 'admin' }, 'name'],
      [{ email: newEmail(), name: 'x'.repeat(256), role: 'admin' }, 'name'],
      [{ email: newEmail(), name: 'X', role: 'owner' }, 'role'],
      [{ email: newEmail(), name: 'X', role: 'member' }, 'companyId'],
      [{ email: newEmail(), name: 'X', role: 'member', companyId: 'not-a-uuid' }, 'companyId'],
      [{ email: newEmail(), name: 'X', role: 'admin', companyId, appRole: 'super_admin' }, ''],
    ];
    for (const [body, path] of cases) {
      const res = await invite(body, t.admin.token, 'ar');
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(JSON.stringify(errorOf(res).details)).toContain(`"path":"${path}`);
    }
    expect(await t.db.query(`select id from users where name = 'X'`)).toEqual([]);
  });

  it('is super_admin only: 401 without a session, AUTH_FORBIDDEN for every other role incl. a b2b-manage admin (both languages)', async () => {
    const body = { email: newEmail(), name: 'Guarded', role: 'admin' };
    const anonymous = await request(t.app).post('/admin/companies/invites').send(body);
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
    const other = await signUp(t);
    for (const role of ['end_user', 'b2b_admin', 'support', 'activation_officer', 'admin']) {
      await t.db.query(`update users set app_role = $2, managed_areas = $3, managed_areas_write = $3 where id = $1`, [
        other.userId,
        role,
        role === 'admin' ? ['b2b'] : null,
      ]);
      const res = await invite(body, other.token, 'ar');
      expect([role, res.status, errorCode(res), errorOf(res).message]).toEqual([
        role,
        403,
        'AUTH_FORBIDDEN',
        'ليست لديك صلاحية لتنفيذ هذا الإجراء',
      ]);
    }
    expect(await t.db.query(`select id from users where name = 'Guarded'`)).toEqual([]);
  });
});
