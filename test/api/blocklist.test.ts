import request from 'supertest';
import { bearer, createTestApp, errorCode, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { typed } from '../helpers/responses';

// Deactivation ends live sessions; a blocklisted user or device gets AUTH_BLOCKLISTED 403 on
// sign-in and on every authenticated request. Blocklisting is a super_admin action, audited.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface AuditRow {
  action: string;
  actor_user_id: string | null;
  entity_type: string;
  entity_id: string | null;
  details: Record<string, unknown>;
}
const auditOf = (action: string, entityId: string) =>
  t.db.query<AuditRow>(
    'select action, actor_user_id, entity_type, entity_id, details from audit_events where action = $1 and entity_id = $2 order by created_at',
    [action, entityId],
  );

async function superAdmin() {
  const admin = await signUp(t, { name: 'Root' });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [admin.userId]);
  return admin;
}

const session = (token: string, device?: string) => {
  const req = request(t.app).get('/auth/session').set(bearer(token));
  return device ? req.set('X-Device-Id', device) : req;
};

/** Login + verify-otp for a phone user, optionally from a device. */
async function signIn(phone: string, device?: string) {
  const login = await request(t.app).post('/auth/login').send({ phone });
  if (login.status !== 200) return login;
  const verify = request(t.app).post('/auth/verify-otp').set(MOBILE);
  if (device) verify.set('X-Device-Id', device);
  return verify.send({ phone, otp: lastCode(t, phone) });
}

let deviceCounter = 0;
const newDevice = () => `device-${process.pid}-${(deviceCounter += 1)}`;

describe('deactivation', () => {
  it('revokes the live sessions: nothing is left live when the account comes back', async () => {
    const { token, userId } = await signUp(t);
    await t.db.query('update users set is_active = false where id = $1', [userId]);
    const live = await t.db.query('select id from sessions where user_id = $1 and revoked_at is null', [userId]);
    expect(live).toEqual([]);
    expect(errorCode(await session(token))).toBe('AUTH_ACCOUNT_DEACTIVATED');
    await t.db.query('update users set is_active = true where id = $1', [userId]);
    expect(errorCode(await session(token))).toBe('AUTH_REQUIRED');
  });
});

describe('user blocklist', () => {
  it('answers AUTH_BLOCKLISTED on authenticated routes and on sign-in; unblocking lets the person sign in again', async () => {
    const admin = await superAdmin();
    const phone = newPhone();
    const user = await signUp(t, { phone });

    const blocked = await request(t.app)
      .post(`/admin/users/${user.userId}/blocklist`)
      .set(bearer(admin.token))
      .send({ reason: 'Fraud report 42' });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({
      data: { userId: user.userId, blocklisted: true, blocklistedAt: match.stringMatching(/Z$/), revokedSessions: 1 },
    });
    const res = await session(user.token);
    expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_BLOCKLISTED']);
    const me = await request(t.app).get('/auth/me').set(bearer(user.token));
    expect([me.status, errorCode(me)]).toEqual([403, 'AUTH_BLOCKLISTED']);
    const signInRes = await signIn(phone);
    expect([signInRes.status, errorCode(signInRes)]).toEqual([403, 'AUTH_BLOCKLISTED']);
    expect(await auditOf('user.blocklisted', user.userId)).toEqual([
      {
        action: 'user.blocklisted',
        actor_user_id: admin.userId,
        entity_type: 'user',
        entity_id: user.userId,
        details: { reason: 'Fraud report 42', revokedSessions: 1 },
      },
    ]);

    const unblocked = await request(t.app).delete(`/admin/users/${user.userId}/blocklist`).set(bearer(admin.token));
    expect(unblocked.body).toEqual({ data: { userId: user.userId, blocklisted: false, blocklistedAt: null, revokedSessions: 0 } });
    expect(await auditOf('user.unblocklisted', user.userId)).toHaveLength(1);
    // The sessions ended with the block stay ended; a new sign-in works.
    expect(errorCode(await session(user.token))).toBe('AUTH_REQUIRED');
    expect((await signIn(phone)).status).toBe(200);
  });

  it('is for super_admin only, refuses an unknown user and the admin’s own account', async () => {
    const admin = await superAdmin();
    const user = await signUp(t);
    const byUser = await request(t.app).post(`/admin/users/${admin.userId}/blocklist`).set(bearer(user.token)).send({ reason: 'x' });
    expect([byUser.status, errorCode(byUser)]).toEqual([403, 'AUTH_FORBIDDEN']);
    const unknown = await request(t.app)
      .post('/admin/users/5f0c2a7e-0000-4000-8000-000000000000/blocklist')
      .set(bearer(admin.token))
      .send({ reason: 'x' });
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'ADMIN_USER_NOT_FOUND']);
    const self = await request(t.app).post(`/admin/users/${admin.userId}/blocklist`).set(bearer(admin.token)).send({ reason: 'x' });
    expect([self.status, errorCode(self)]).toEqual([403, 'AUTH_FORBIDDEN']);
    const noReason = await request(t.app).post(`/admin/users/${user.userId}/blocklist`).set(bearer(admin.token)).send({});
    expect([noReason.status, errorCode(noReason)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await auditOf('user.blocklisted', user.userId)).toEqual([]);
  });
});

describe('device blocklist (X-Device-Id)', () => {
  it('refuses sign-in and every request from the device, and the sessions signed in from it; unblocking lifts it', async () => {
    const admin = await superAdmin();
    const device = newDevice();
    const phone = newPhone();
    await signUp(t, { phone });
    const fromDevice = typed<{ session: { token: string } }>(await signIn(phone, device));
    expect(fromDevice.status).toBe(200);
    const elsewhere = await signUp(t);

    const blocked = await request(t.app)
      .post('/admin/device-blocklist')
      .set(bearer(admin.token))
      .send({ deviceId: device, reason: 'Stolen' });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ data: { deviceId: device, blocklisted: true, revokedSessions: 1 } });

    // The session signed in from the device, even when the header is left out.
    expect(errorCode(await session(fromDevice.body.session.token))).toBe('AUTH_BLOCKLISTED');
    // Any session that sends the device's id.
    const other = await session(elsewhere.token, device);
    expect([other.status, errorCode(other)]).toEqual([403, 'AUTH_BLOCKLISTED']);
    expect((await session(elsewhere.token)).status).toBe(200);
    // Sign-in from the device.
    const again = await signIn(phone, device);
    expect([again.status, errorCode(again)]).toEqual([403, 'AUTH_BLOCKLISTED']);

    const [audit] = await t.db.query<AuditRow>(`select * from audit_events where action = 'device.blocklisted' and actor_user_id = $1`, [
      admin.userId,
    ]);
    expect(audit).toMatchObject({ entity_type: 'device', details: { reason: 'Stolen', revokedSessions: 1 } });
    // The audit trail names the device by its keyed hash, never by the id the app sent.
    expect(JSON.stringify(audit)).not.toContain(device);

    const lifted = await request(t.app)
      .delete(`/admin/device-blocklist/${encodeURIComponent(device)}`)
      .set(bearer(admin.token));
    expect(lifted.body).toEqual({ data: { deviceId: device, blocklisted: false, revokedSessions: 0 } });
    expect(
      await t.db.query(`select 1 from audit_events where action = 'device.unblocklisted' and actor_user_id = $1`, [admin.userId]),
    ).toHaveLength(1);
    expect((await session(elsewhere.token, device)).status).toBe(200);
    t.clock.advance(15 * 60_000 + 1000); // past the 3-codes-per-15-minutes limit of the phone
    expect((await signIn(phone, device)).status).toBe(200);
  });
});
