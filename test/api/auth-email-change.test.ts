import request from 'supertest';
import type { z } from 'zod';
import type { ProfileUser, SignInResponse, VerifyChangeEmailResponse } from '../../src/auth/schemas';
import { bearer, createTestApp, errorCode, lastCode, MOBILE, signUp, type TestApp } from '../helpers/app';
import { errorOf, typed } from '../helpers/responses';
import { match } from '../helpers/match';

// PUT /auth/me changes the e-mail only once the new address proved itself: the request sends a
// code to it, POST /auth/verify-change-email with that code makes it the account's e-mail.
type Profile = z.infer<typeof ProfileUser>;
type Verified = z.infer<typeof VerifyChangeEmailResponse>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let counter = 0;
const newEmail = (label: string) => `${label}-${process.pid}-${(counter += 1)}@example.com`;
const me = (token: string) => request(t.app).get('/auth/me').set(bearer(token));
const putMe = (token: string, body: object) => request(t.app).put('/auth/me').set(bearer(token)).send(body);
const confirm = (token: string, body: object) => request(t.app).post('/auth/verify-change-email').set(bearer(token)).send(body);
const signInByEmail = async (email: string) => {
  const login = await request(t.app).post('/auth/login').send({ email });
  if (login.status !== 200) return login;
  return request(t.app)
    .post('/auth/verify-otp')
    .set(MOBILE)
    .send({ email, otp: lastCode(t, email) });
};

const emailProven = async (userId: string) =>
  (await t.db.query<{ email_proven: boolean }>('select email_proven from users where id = $1', [userId]))[0].email_proven;

describe('changing the e-mail: shown at once, proven by its own code', () => {
  it('PUT /auth/me makes the new address the e-mail at once, unproven, and sends it a code that proves it', async () => {
    const old = newEmail('old');
    const { token, userId } = await signUp(t, { email: old });
    const next = newEmail('next');
    const put = typed<Profile>(await putMe(token, { name: 'Renamed', email: next }));
    expect(put.status).toBe(200);
    // "Response 200: the updated user object": both fields change at once.
    expect(put.body).toMatchObject({ id: userId, name: 'Renamed', email: next });
    expect(t.messages.at(-1)).toMatchObject({ channel: 'email', to: next, purpose: 'otp.change_email' });
    expect(await emailProven(userId)).toBe(false);
    // The old address is no longer the account's.
    expect(errorCode(await signInByEmail(old))).toBe('AUTH_INVALID_OTP');

    const res = typed<Verified>(await confirm(token, { newEmail: next, otp: lastCode(t, next) }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: match.objectContaining({ id: userId, email: next, name: 'Renamed' }),
      message: 'E-mail address updated',
    });
    expect(await emailProven(userId)).toBe(true);
    expect(typed<Profile>(await me(token)).body.email).toBe(next);
    expect(typed<z.infer<typeof SignInResponse>>(await signInByEmail(next)).body.user.id).toBe(userId);
  });

  it('refuses a wrong code, a code for another address, and another user holding the code', async () => {
    const { token, userId } = await signUp(t);
    const next = newEmail('strict');
    await putMe(token, { email: next }).expect(200);
    const code = lastCode(t, next);
    const wrong = code === '000000' ? '000001' : '000000';
    expect(errorCode(await confirm(token, { newEmail: next, otp: wrong }))).toBe('AUTH_INVALID_OTP');
    expect(errorCode(await confirm(token, { newEmail: newEmail('other'), otp: code }))).toBe('AUTH_INVALID_OTP');
    // Another signed-in user cannot complete it with the code either: the challenge is bound to its user.
    const { token: otherToken } = await signUp(t);
    expect(errorCode(await confirm(otherToken, { newEmail: next, otp: code }))).toBe('AUTH_INVALID_OTP');
    // The address stays the account's, unproven.
    expect(typed<Profile>(await me(token)).body.email).toBe(next);
    expect(await emailProven(userId)).toBe(false);
  });

  it('an address another account proved is a VALIDATION_ERROR on email, and no code is sent', async () => {
    const taken = newEmail('taken');
    await signUp(t, { email: taken });
    const { token } = await signUp(t);
    const before = t.messages.length;
    const res = await putMe(token, { email: taken });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toEqual([{ path: 'email', message: match.any(String) }]);
    expect(t.messages).toHaveLength(before);
  });

  it('when another account proves the address first, confirming answers VALIDATION_ERROR on newEmail', async () => {
    const contested = newEmail('contested');
    const { token } = await signUp(t);
    await putMe(token, { email: contested }).expect(200);
    const code = lastCode(t, contested);
    await signUp(t, { email: contested });
    const res = await confirm(token, { newEmail: contested, otp: code });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toEqual([{ path: 'newEmail', message: match.any(String) }]);
  });

  it('counts e-mail change codes in the 3-per-15-minutes limit of the address', async () => {
    const { token } = await signUp(t);
    const next = newEmail('limited');
    for (let i = 0; i < 3; i += 1) await putMe(token, { email: next }).expect(200);
    const fourth = await putMe(token, { email: next });
    expect([fourth.status, errorCode(fourth)]).toEqual([401, 'AUTH_RATE_LIMIT_EXCEEDED']);
  });

  it('null still removes the e-mail at once (nothing to prove)', async () => {
    const email = newEmail('remove');
    const { token } = await signUp(t, { phone: undefined, email });
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: '+966511112222' }).expect(200);
    await request(t.app)
      .post('/auth/verify-change-phone')
      .set(bearer(token))
      .send({ newPhone: '+966511112222', otp: lastCode(t, '+966511112222') })
      .expect(200);
    expect(typed<Profile>(await putMe(token, { email: null })).body.email).toBeNull();
  });
});
