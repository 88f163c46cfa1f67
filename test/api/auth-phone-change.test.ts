import request from 'supertest';
import type { z } from 'zod';
import type { ProfileUser, VerifyChangePhoneResponse } from '../../src/auth/schemas';
import type { FieldIssue } from '../../src/http/errors';
import { bearer, createTestApp, errorCode, lastCode, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

type PhoneChanged = z.infer<typeof VerifyChangePhoneResponse>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const code = errorCode;

describe('phone change', () => {
  it('sends a purpose-bound code to the new number and changes the phone on verification, without a new session', async () => {
    const { token, userId } = await signUp(t);
    const newNumber = newPhone();
    const sent = await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: newNumber });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ message: match.any(String) });
    expect(t.messages.at(-1)).toMatchObject({ channel: 'sms', to: newNumber, purpose: 'otp.change_phone' });

    const res = typed<PhoneChanged>(
      await request(t.app)
        .post('/auth/verify-change-phone')
        .set(bearer(token))
        .send({ newPhone: newNumber, otp: lastCode(t, newNumber) }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: userId,
        phone: newNumber,
        name: 'Sara',
        email: null,
        appRole: 'end_user',
        identityType: 'citizen',
        isActive: true,
        createdAt: match.any(String),
      },
      message: match.any(String),
    });
    expect(res.headers['set-cookie']).toBeUndefined();
    // A JSON body has no undefined members: absent is the only way `session` can be undefined.
    expect(res.body).not.toHaveProperty('session');
    expect(typed<z.infer<typeof ProfileUser>>(await request(t.app).get('/auth/me').set(bearer(token))).body.phone).toBe(newNumber);
  });

  it('answers its messages in the Accept-Language', async () => {
    const { token } = await signUp(t);
    const target = newPhone();
    const sent = await request(t.app).post('/auth/change-phone').set(bearer(token)).set('Accept-Language', 'ar').send({ newPhone: target });
    expect([sent.status, sent.body]).toEqual([200, { message: 'تم إرسال رمز التحقق' }]);
    const done = typed<PhoneChanged>(
      await request(t.app)
        .post('/auth/verify-change-phone')
        .set(bearer(token))
        .set('Accept-Language', 'ar-SA,en;q=0.5')
        .send({ newPhone: target, otp: lastCode(t, target) }),
    );
    expect([done.status, done.body.message]).toEqual([200, 'تم تحديث رقم الجوال']);

    const other = newPhone();
    const sentEn = await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: other });
    expect(sentEn.body).toEqual({ message: 'Verification code sent' });
    const doneEn = typed<PhoneChanged>(
      await request(t.app)
        .post('/auth/verify-change-phone')
        .set(bearer(token))
        .set('Accept-Language', 'fr')
        .send({ newPhone: other, otp: lastCode(t, other) }),
    );
    expect([doneEn.status, doneEn.body.message]).toEqual([200, 'Phone number updated']);
  });

  it('answers AUTH_PHONE_EXISTS 409 and sends nothing when another account owns the number', async () => {
    const other = await signUp(t);
    const { token } = await signUp(t);
    const before = t.messages.length;
    const res = await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: other.phone });
    expect([res.status, code(res)]).toEqual([409, 'AUTH_PHONE_EXISTS']);
    expect(t.messages.length).toBe(before);
  });

  it('answers AUTH_PHONE_EXISTS 409 on verification when the number was taken meanwhile', async () => {
    const { token } = await signUp(t);
    const contested = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: contested }).expect(200);
    const otp = lastCode(t, contested);
    await signUp(t, { phone: contested });
    const res = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: contested, otp });
    expect([res.status, code(res)]).toEqual([409, 'AUTH_PHONE_EXISTS']);
  });

  it('does not accept a login or register code, and its code does not sign in', async () => {
    const { token, phone } = await signUp(t);
    const target = newPhone();
    // A register code for `target` belongs to another flow and must not complete the change.
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    const changeCode = lastCode(t, target);
    const signIn = await request(t.app).post('/auth/verify-otp').send({ phone: target, otp: changeCode });
    expect(code(signIn)).toBe('AUTH_INVALID_OTP');

    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    const loginCode = lastCode(t, phone!);
    const misuse = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: phone, otp: loginCode });
    expect([misuse.status, code(misuse)]).toEqual([401, 'AUTH_INVALID_OTP']);
  });

  it("is bound to the user: another user's session cannot complete it", async () => {
    const alice = await signUp(t);
    const mallory = await signUp(t);
    const target = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(alice.token)).send({ newPhone: target }).expect(200);
    const res = await request(t.app)
      .post('/auth/verify-change-phone')
      .set(bearer(mallory.token))
      .send({ newPhone: target, otp: lastCode(t, target) });
    expect(code(res)).toBe('AUTH_INVALID_OTP');
    // Alice can still complete it.
    const ok = await request(t.app)
      .post('/auth/verify-change-phone')
      .set(bearer(alice.token))
      .send({ newPhone: target, otp: lastCode(t, target) });
    expect(ok.status).toBe(200);
  });

  it("keeps each user's code: another user's request for the same number does not void it", async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const target = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(alice.token)).send({ newPhone: target }).expect(200);
    const aliceCode = lastCode(t, target);
    await request(t.app).post('/auth/change-phone').set(bearer(bob.token)).send({ newPhone: target }).expect(200);
    const bobCode = lastCode(t, target);

    const ok = typed<PhoneChanged>(
      await request(t.app).post('/auth/verify-change-phone').set(bearer(alice.token)).send({ newPhone: target, otp: aliceCode }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ id: alice.userId, phone: target });
    // Bob's code is still his own, but the number now belongs to Alice.
    const late = await request(t.app).post('/auth/verify-change-phone').set(bearer(bob.token)).send({ newPhone: target, otp: bobCode });
    expect([late.status, code(late)]).toEqual([409, 'AUTH_PHONE_EXISTS']);
  });

  it("a user's new request still supersedes their own earlier code", async () => {
    const { token } = await signUp(t);
    const target = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    const first = lastCode(t, target);
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    const second = lastCode(t, target);
    if (first !== second) {
      const stale = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: target, otp: first });
      expect(code(stale)).toBe('AUTH_INVALID_OTP');
    }
    const res = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: target, otp: second });
    expect(res.status).toBe(200);
  });

  it('expires codes after 300 seconds and after 5 wrong attempts', async () => {
    const { token } = await signUp(t);
    const target = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    const otp = lastCode(t, target);
    const wrong = otp === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i += 1) {
      expect(code(await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: target, otp: wrong }))).toBe(
        'AUTH_INVALID_OTP',
      );
    }
    const locked = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: target, otp });
    expect([locked.status, code(locked)]).toEqual([401, 'AUTH_EXPIRED_OTP']);

    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    t.clock.advance(301_000);
    const late = await request(t.app)
      .post('/auth/verify-change-phone')
      .set(bearer(token))
      .send({ newPhone: target, otp: lastCode(t, target) });
    expect(code(late)).toBe('AUTH_EXPIRED_OTP');
  });

  it('limits change-phone requests to 3 per number per window', async () => {
    const { token } = await signUp(t);
    const target = newPhone();
    for (let i = 0; i < 3; i += 1)
      await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    const res = await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target });
    expect([res.status, code(res)]).toEqual([401, 'AUTH_RATE_LIMIT_EXCEEDED']);
  });

  it('validates the number and requires a session', async () => {
    const { token } = await signUp(t);
    const bad = await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: '0501234567' });
    expect(errorOf(bad)).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'newPhone', message: match.any(String) }] });
    expect(code(await request(t.app).post('/auth/change-phone').send({ newPhone: newPhone() }))).toBe('AUTH_REQUIRED');
    expect(code(await request(t.app).post('/auth/verify-change-phone').send({ newPhone: newPhone(), otp: '123456' }))).toBe(
      'AUTH_REQUIRED',
    );
    const noOtp = await request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: newPhone() });
    expect(errorOf<FieldIssue[]>(noOtp).details).toEqual([{ path: 'otp', message: match.any(String) }]);
  });

  it('answers AUTH_PHONE_UPDATE_FAILED 502 when persisting fails, and leaves the old phone', async () => {
    const { token, userId, phone } = await signUp(t);
    const target = newPhone();
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: target }).expect(200);
    // A trigger makes the write fail the way a broken database would.
    await t.db.query(`create function fail_phone() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`);
    await t.db.query(`create trigger fail_phone before update of phone_hash on users for each row execute function fail_phone()`);
    try {
      const res = await request(t.app)
        .post('/auth/verify-change-phone')
        .set(bearer(token))
        .send({ newPhone: target, otp: lastCode(t, target) });
      expect([res.status, code(res)]).toEqual([502, 'AUTH_PHONE_UPDATE_FAILED']);
      expect(JSON.stringify(res.body)).not.toContain('disk full');
    } finally {
      await t.db.query('drop trigger fail_phone on users; drop function fail_phone();');
    }
    expect((await request(t.app).get('/auth/me').set(bearer(token))).body).toMatchObject({ id: userId, phone });
  });
});
