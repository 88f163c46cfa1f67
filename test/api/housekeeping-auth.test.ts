/**
 * What the auth purges mean for a client, through the real API: nothing still meant to refuse a
 * token or a device is purged, and an expired code changes its answer only once its keep period
 * has passed (AUTH_EXPIRED_OTP until then, AUTH_INVALID_OTP after).
 */
import request from 'supertest';
import { createHousekeepingActivities } from '../../activities/housekeeping';
import type { PurgeTarget } from '../../workflows/contracts/housekeeping-contract';
import { bearer, CONSENTS, createTestApp, errorCode, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SKEW = 5 * MINUTE;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const purge = (target: PurgeTarget, keepMs: number) =>
  createHousekeepingActivities({ db: t.db.sql, clock: t.clock }).purgeExpired({ target, keepMs, batchSize: 1000 });
const session = (token: string) => request(t.app).get('/auth/session').set(bearer(token));
const count = async (sql: string, params: unknown[]) => (await t.db.query(sql, params)).length;

it('an expired code reads AUTH_EXPIRED_OTP while it is kept, and AUTH_INVALID_OTP once purged', async () => {
  const phone = newPhone();
  await request(t.app).post('/auth/register').send({ phone, name: 'Late', consents: CONSENTS }).expect(201);
  const code = lastCode(t, phone);
  t.clock.advance(t.config.OTP_TTL_SECONDS * 1000 + MINUTE);

  expect(await purge('otp_challenges', DAY)).toEqual({ deleted: 0 });
  expect(errorCode(await request(t.app).post('/auth/verify-otp').send({ phone, otp: code }))).toBe('AUTH_EXPIRED_OTP');

  t.clock.advance(DAY);
  expect(await purge('otp_challenges', DAY)).toEqual({ deleted: 1 });
  expect(errorCode(await request(t.app).post('/auth/verify-otp').send({ phone, otp: code }))).toBe('AUTH_INVALID_OTP');
});

it('a logged-out mobile token stays refused: its blocklist row and session outlive the purge until the token expires', async () => {
  const { token, userId } = await signUp(t);
  await request(t.app).post('/auth/logout').set(MOBILE).set(bearer(token)).expect(200);

  t.clock.advance(t.config.MOBILE_SESSION_SECONDS * 1000 - MINUTE);
  expect([await purge('token_blocklist', SKEW), await purge('sessions', SKEW)]).toEqual([{ deleted: 0 }, { deleted: 0 }]);
  expect(errorCode(await session(token))).toBe('AUTH_REQUIRED');

  // Expired: the token's own exp refuses it, so both rows can go.
  t.clock.advance(MINUTE + SKEW + 1000);
  expect(await purge('token_blocklist', SKEW)).toEqual({ deleted: 1 });
  expect((await purge('sessions', SKEW)).deleted).toBeGreaterThanOrEqual(1);
  expect(await count('select 1 from sessions where user_id = $1', [userId])).toBe(0);
  expect(errorCode(await session(token))).toBe('AUTH_SESSION_EXPIRED');
});

it('a session revoked by a device block still answers AUTH_BLOCKLISTED after the purge, and the block stays', async () => {
  const admin = await signUp(t, { name: 'Root' });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [admin.userId]);
  const phone = newPhone();
  await signUp(t, { phone });
  const device = `device-${process.pid}-housekeeping`;
  await request(t.app).post('/auth/login').send({ phone }).expect(200);
  const signedIn = await request(t.app)
    .post('/auth/verify-otp')
    .set(MOBILE)
    .set('X-Device-Id', device)
    .send({ phone, otp: lastCode(t, phone) })
    .expect(200);
  const token = (signedIn.body as { session: { token: string } }).session.token;
  await request(t.app).post('/admin/device-blocklist').set(bearer(admin.token)).send({ deviceId: device, reason: 'Stolen' }).expect(200);

  t.clock.advance(7 * DAY);
  expect(await purge('sessions', SKEW)).toEqual({ deleted: 0 });
  // Without the header: only the revoked session's row still ties the token to the device.
  expect(errorCode(await session(token))).toBe('AUTH_BLOCKLISTED');
  expect(await count('select 1 from device_blocklist', [])).toBe(1);
});
