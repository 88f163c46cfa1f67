import request from 'supertest';
import type { z } from 'zod';
import type { RegisterResponse, SignInResponse } from '../../src/auth/schemas';
import { createUser, parseCreateUserArgs } from '../../src/cli/create-user';
import type { FieldIssue } from '../../src/http/errors';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { CONSENTS, createTestApp, errorCode, lastCode, MOBILE, newPhone, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

type Registered = z.infer<typeof RegisterResponse>;
type SignedIn = z.infer<typeof SignInResponse>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const register = (body: object) => request(t.app).post('/auth/register').send(body);

/** A registered phone account whose phone is proven (its registration code verified), so it can log in. */
async function registerProven(phone: string, name: string) {
  await register({ phone, name, consents: CONSENTS }).expect(201);
  await request(t.app)
    .post('/auth/verify-otp')
    .set(MOBILE)
    .send({ phone, otp: lastCode(t, phone) })
    .expect(200);
}

describe('POST /auth/register', () => {
  it('creates the user, stores personal data encrypted and sends each identifier its own OTP', async () => {
    const phone = newPhone();
    const email = 'Dual.User@Example.com';
    const res = typed<Registered>(await register({ phone, email, name: 'Dual', consents: CONSENTS }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ userId: match.any(String), message: match.any(String) });

    // Both identifiers are the account's, encrypted, looked up by keyed hash; neither is proven yet.
    const [row] = await t.db.query<Record<string, string | boolean | null>>('select * from users where id = $1', [res.body.userId]);
    expect(row.phone_encrypted).not.toContain(phone.slice(4));
    expect(row.email_encrypted).not.toContain('example');
    expect(row.phone_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.email_hash).toMatch(/^[0-9a-f]{64}$/);
    expect([row.phone_proven, row.email_proven, row.pending_phone_hash, row.pending_email_hash]).toEqual([false, false, null, null]);
    const consents = await t.db.query('select type from consents where user_id = $1 order by type', [res.body.userId]);
    expect(consents.map((c) => c.type)).toEqual(['data_processing', 'privacy_policy', 'terms_of_service']);

    const sms = t.messages.filter((m) => m.to === phone);
    const mail = t.messages.filter((m) => m.to === 'dual.user@example.com');
    expect(sms).toHaveLength(1);
    expect(mail).toHaveLength(1);
    const challenges = await t.db.query<{ code_hash: string; phone_hash: string | null; email_hash: string | null }>(
      'select code_hash, phone_hash, email_hash from otp_challenges where user_id = $1',
      [res.body.userId],
    );
    // One challenge per identifier, each for exactly one of them.
    expect(challenges.map((c) => [c.phone_hash !== null, c.email_hash !== null]).sort()).toEqual([
      [false, true],
      [true, false],
    ]);
    for (const c of challenges) expect(c.code_hash).not.toContain(lastCode(t, phone));
  });

  it('completes with either identifier used; the user object carries both (User: email is null only for phone-only users)', async () => {
    const phone = newPhone();
    const email = `either-${Date.now()}@example.com`;
    await register({ phone, email, name: 'Either', consents: CONSENTS }).expect(201);
    const res = typed<SignedIn>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(MOBILE)
        .send({ email, otp: lastCode(t, email) }),
    );
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      id: match.any(String),
      phone,
      email,
      name: 'Either',
      appRole: 'end_user',
      identityType: 'citizen',
    });
  });

  it('answers AUTH_NO_CREDENTIAL without phone or email', async () => {
    const res = await register({ name: 'Nobody', consents: CONSENTS });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('AUTH_NO_CREDENTIAL');
  });

  it.each([
    ['missing', undefined],
    ['two entries', CONSENTS.slice(0, 2)],
    ['a duplicate type', [CONSENTS[0], CONSENTS[0], CONSENTS[1]]],
    ['marketing instead of a required one', [CONSENTS[0], CONSENTS[1], { type: 'marketing', version: '1' }]],
    ['an empty version', [CONSENTS[0], CONSENTS[1], { type: 'data_processing', version: '' }]],
    ['not an array', 'yes'],
  ])('answers AUTH_CONSENT_REQUIRED for consents %s', async (_label, consents) => {
    const phone = newPhone();
    const res = await register({ phone, name: 'C', consents });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('AUTH_CONSENT_REQUIRED');
    expect(await t.db.query('select 1 from users where name = $1', ['C'])).toHaveLength(0);
  });

  it('answers AUTH_PHONE_EXISTS and AUTH_EMAIL_EXISTS with 401 for proven identifiers', async () => {
    const phone = newPhone();
    const email = `taken-${Date.now()}@example.com`;
    await register({ phone, email, name: 'First', consents: CONSENTS }).expect(201);
    await request(t.app)
      .post('/auth/verify-otp')
      .send({ phone, otp: lastCode(t, phone) })
      .expect(200);
    await request(t.app)
      .post('/auth/verify-otp')
      .send({ email, otp: lastCode(t, email) })
      .expect(200);
    const byPhone = await register({ phone, name: 'Second', consents: CONSENTS });
    expect([byPhone.status, errorCode(byPhone)]).toEqual([401, 'AUTH_PHONE_EXISTS']);
    const byEmail = await register({ email: email.toUpperCase(), name: 'Second', consents: CONSENTS });
    expect([byEmail.status, errorCode(byEmail)]).toEqual([401, 'AUTH_EMAIL_EXISTS']);
  });

  it('refuses every one of many parallel registrations of a proven phone', async () => {
    const phone = newPhone();
    await registerProven(phone, 'Race');
    const results = await Promise.all(Array.from({ length: 6 }, () => register({ phone, name: 'Race', consents: CONSENTS })));
    expect(results.map(errorCode)).toEqual(Array.from({ length: 6 }, () => 'AUTH_PHONE_EXISTS'));
  });

  it.each([
    ['a non-Saudi phone', { phone: '+971501234567', name: 'X', consents: CONSENTS }, 'phone'],
    ['a short Saudi phone', { phone: '+96650123456', name: 'X', consents: CONSENTS }, 'phone'],
    ['a bad e-mail', { email: 'not-an-email', name: 'X', consents: CONSENTS }, 'email'],
    ['an empty name', { phone: '+966501111111', name: '', consents: CONSENTS }, 'name'],
    ['a 256-character name', { phone: '+966501111111', name: 'x'.repeat(256), consents: CONSENTS }, 'name'],
  ])('answers VALIDATION_ERROR with details for %s', async (_label, body, path) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({
      code: 'VALIDATION_ERROR',
      message: match.any(String),
      details: [{ path, message: match.any(String) }],
    });
  });

  it('answers VALIDATION_ERROR for malformed JSON', async () => {
    const res = await request(t.app).post('/auth/register').set('Content-Type', 'application/json').send('{"phone":');
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
  });
});

describe('POST /auth/login and POST /auth/verify-otp', () => {
  it('signs a registered user in by OTP; mobile gets the token in the body and no cookie', async () => {
    const phone = newPhone();
    await registerProven(phone, 'Mobile');
    const login = await request(t.app).post('/auth/login').send({ phone });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ message: match.any(String) });
    const res = typed<SignedIn>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set('User-Agent', 'okhttp/4.12.0')
        .send({ phone, otp: lastCode(t, phone) }),
    );
    expect(res.status).toBe(200);
    expect(res.body.session).toEqual({ token: match.any(String), clientType: 'mobile', expiresAt: match.stringMatching(/\.\d{3}Z$/) });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('gives web clients the session cookie with exactly the required attributes', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Web', consents: CONSENTS }).expect(201);
    const res = typed<SignedIn>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set('User-Agent', 'Mozilla/5.0 (Linux; Android 14) Chrome/130')
        .send({ phone, otp: lastCode(t, phone) }),
    );
    expect(res.status).toBe(200);
    expect(res.body.session).toEqual({ clientType: 'web', expiresAt: match.any(String) });
    const cookies = res.headers['set-cookie'] as unknown as string[];
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = cookies[0].split('; ');
    expect(pair).toMatch(/^activation-sys-session=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=3600', 'Path=/', 'Priority=High', 'SameSite=Strict', 'Secure'].sort());
    expect(new Date(res.body.session.expiresAt).getTime() - t.clock().getTime()).toBeLessThanOrEqual(3600_000);
  });

  it('returns phone null for e-mail-only users', async () => {
    const email = `mail-only-${Date.now()}@example.com`;
    await register({ email, name: 'Mail', consents: CONSENTS }).expect(201);
    const res = typed<SignedIn>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(MOBILE)
        .send({ email, otp: lastCode(t, email) }),
    );
    expect(res.body.user.phone).toBeNull();
    expect(res.body.user.email).toBe(email);
  });

  it('answers an unregistered identifier exactly like a wrong code (no enumeration)', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Known', consents: CONSENTS }).expect(201);
    const unknown = await request(t.app).post('/auth/login').send({ phone: newPhone() });
    const wrong = await request(t.app)
      .post('/auth/verify-otp')
      .send({ phone, otp: lastCode(t, phone) === '000000' ? '111111' : '000000' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(errorCode(unknown)).toBe('AUTH_INVALID_OTP');
    const verifyUnknown = await request(t.app).post('/auth/verify-otp').send({ phone: newPhone(), otp: '123456' });
    expect(verifyUnknown.body).toEqual(wrong.body);
  });

  it('answers AUTH_NO_CREDENTIAL on login without identifiers and VALIDATION_ERROR on verify-otp without them', async () => {
    const login = await request(t.app).post('/auth/login').send({});
    expect([login.status, errorCode(login)]).toEqual([401, 'AUTH_NO_CREDENTIAL']);
    const verify = await request(t.app).post('/auth/verify-otp').send({ otp: '123456' });
    expect([verify.status, errorCode(verify)]).toEqual([400, 'VALIDATION_ERROR']);
    const badOtp = await request(t.app).post('/auth/verify-otp').send({ phone: newPhone(), otp: '12345' });
    expect(errorOf<FieldIssue[]>(badOtp).details).toEqual([{ path: 'otp', message: match.any(String) }]);
  });

  it('expires a code after 300 seconds (clock control)', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Late', consents: CONSENTS }).expect(201);
    const code = lastCode(t, phone);
    t.clock.advance(300_000);
    const res = await request(t.app).post('/auth/verify-otp').send({ phone, otp: code });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_EXPIRED_OTP']);
  });

  it('accepts a code just before its lifetime ends', async () => {
    const phone = newPhone();
    await register({ phone, name: 'OnTime', consents: CONSENTS }).expect(201);
    t.clock.advance(299_000);
    const res = await request(t.app)
      .post('/auth/verify-otp')
      .set(MOBILE)
      .send({ phone, otp: lastCode(t, phone) });
    expect(res.status).toBe(200);
  });

  it('allows 5 attempts, then answers AUTH_EXPIRED_OTP even for the right code', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Guess', consents: CONSENTS }).expect(201);
    const code = lastCode(t, phone);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i += 1) {
      const res = await request(t.app).post('/auth/verify-otp').send({ phone, otp: wrong });
      expect(errorCode(res)).toBe('AUTH_INVALID_OTP');
    }
    const res = await request(t.app).post('/auth/verify-otp').send({ phone, otp: code });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_EXPIRED_OTP']);
  });

  it('counts attempts exactly under parallel requests', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Parallel', consents: CONSENTS }).expect(201);
    const wrong = lastCode(t, phone) === '000000' ? '000001' : '000000';
    const results = await Promise.all(
      Array.from({ length: 12 }, () => request(t.app).post('/auth/verify-otp').send({ phone, otp: wrong })),
    );
    const codes = results.map(errorCode);
    expect(codes.filter((c) => c === 'AUTH_INVALID_OTP')).toHaveLength(5);
    expect(codes.filter((c) => c === 'AUTH_EXPIRED_OTP')).toHaveLength(7);
    const [row] = await t.db.query<{ attempts: number }>(
      'select c.attempts from otp_challenges c join users u on u.id = c.user_id where u.name = $1',
      ['Parallel'],
    );
    expect(row.attempts).toBe(5);
  });

  it('lets a code be used once, even by parallel requests', async () => {
    const phone = newPhone();
    await register({ phone, name: 'Once', consents: CONSENTS }).expect(201);
    const otp = lastCode(t, phone);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => request(t.app).post('/auth/verify-otp').set(MOBILE).send({ phone, otp })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => errorCode(r) === 'AUTH_INVALID_OTP')).toHaveLength(4);
  });

  it('allows 3 OTP requests per identifier per 15 minutes, counting register and login together', async () => {
    const phone = newPhone();
    await registerProven(phone, 'Limit');
    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    const fourth = await request(t.app).post('/auth/login').send({ phone });
    expect([fourth.status, errorCode(fourth)]).toEqual([401, 'AUTH_RATE_LIMIT_EXCEEDED']);
    t.clock.advance(15 * 60_000 + 1000);
    await request(t.app).post('/auth/login').send({ phone }).expect(200);
  });

  it('holds the 3-request limit under parallel requests', async () => {
    const phone = newPhone();
    await registerProven(phone, 'LimitParallel');
    t.clock.advance(15 * 60_000 + 1000);
    const results = await Promise.all(Array.from({ length: 8 }, () => request(t.app).post('/auth/login').send({ phone })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => errorCode(r) === 'AUTH_RATE_LIMIT_EXCEEDED')).toHaveLength(5);
  });

  it('rate-limits unregistered identifiers too, so the limit reveals nothing', async () => {
    const phone = newPhone();
    for (let i = 0; i < 3; i += 1) expect(errorCode(await request(t.app).post('/auth/login').send({ phone }))).toBe('AUTH_INVALID_OTP');
    expect(errorCode(await request(t.app).post('/auth/login').send({ phone }))).toBe('AUTH_RATE_LIMIT_EXCEEDED');
  });

  it('rate-limits register per identifier', async () => {
    const email = `reg-limit-${Date.now()}@example.com`;
    for (let i = 0; i < 3; i += 1) await request(t.app).post('/auth/login').send({ email });
    const res = await register({ email, name: 'Limited', consents: CONSENTS });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_RATE_LIMIT_EXCEEDED']);
    expect(await t.db.query('select 1 from users where name = $1', ['Limited'])).toHaveLength(0);
  });

  it('refuses deactivated accounts with AUTH_ACCOUNT_DEACTIVATED', async () => {
    const phone = newPhone();
    const reg = typed<Registered>(await register({ phone, name: 'Gone', consents: CONSENTS }).expect(201));
    await t.db.query('update users set is_active = false where id = $1', [reg.body.userId]);
    const res = await request(t.app)
      .post('/auth/verify-otp')
      .send({ phone, otp: lastCode(t, phone) });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_ACCOUNT_DEACTIVATED']);
  });

  it('only accepts the newest code', async () => {
    const phone = newPhone();
    await registerProven(phone, 'Newest');
    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    const first = lastCode(t, phone);
    t.clock.advance(1000);
    await request(t.app).post('/auth/login').send({ phone }).expect(200);
    const second = lastCode(t, phone);
    if (first !== second) {
      expect(errorCode(await request(t.app).post('/auth/verify-otp').send({ phone, otp: first }))).toBe('AUTH_INVALID_OTP');
    }
    expect((await request(t.app).post('/auth/verify-otp').set(MOBILE).send({ phone, otp: second })).status).toBe(200);
  });
  it('signs in a company-staged user with any E.164 phone, while register stays Saudi-only', async () => {
    const phone = '+971501234567';
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    const { id } = await createUser(t.db.sql, cipher, parseCreateUserArgs(['--role', 'end_user', '--name', 'Staged', '--phone', phone]));

    const login = await request(t.app).post('/auth/login').send({ phone });
    expect([login.status, login.body]).toEqual([200, { message: match.any(String) }]);
    expect(t.messages.at(-1)).toMatchObject({ channel: 'sms', to: phone, purpose: 'otp.login' });
    const res = typed<SignedIn>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(MOBILE)
        .send({ phone, otp: lastCode(t, phone) }),
    );
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id, phone, name: 'Staged' });
    expect(res.body.session).toMatchObject({ clientType: 'mobile', token: match.any(String) });

    const reg = await register({ phone, name: 'Self', consents: CONSENTS });
    expect([reg.status, errorCode(reg)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(reg).details).toEqual([{ path: 'phone', message: match.any(String) }]);
  });

  it.each(['0501234567', '+0501234567', '+97150', '+9715012345678901', '+971 50 123 4567'])(
    'answers VALIDATION_ERROR for the non-E.164 phone %s on login and verify-otp',
    async (phone) => {
      const login = await request(t.app).post('/auth/login').send({ phone });
      expect([login.status, errorCode(login)]).toEqual([400, 'VALIDATION_ERROR']);
      const verify = await request(t.app).post('/auth/verify-otp').send({ phone, otp: '123456' });
      expect([verify.status, errorCode(verify)]).toEqual([400, 'VALIDATION_ERROR']);
    },
  );
});

describe('success messages follow Accept-Language', () => {
  it.each([
    [undefined, 'Verification code sent'],
    ['en', 'Verification code sent'],
    ['ar', 'تم إرسال رمز التحقق'],
    ['en;q=0.1, ar', 'تم إرسال رمز التحقق'],
    ['ar-SA', 'تم إرسال رمز التحقق'],
    ['fr', 'Verification code sent'],
  ])('register and login with Accept-Language %j', async (lang, expected) => {
    const phone = newPhone();
    const reg = request(t.app).post('/auth/register');
    if (lang !== undefined) reg.set('Accept-Language', lang);
    const registered = await reg.send({ phone, name: 'Lang', consents: CONSENTS });
    expect([registered.status, registered.body]).toEqual([201, { userId: match.any(String), message: expected }]);
    await request(t.app)
      .post('/auth/verify-otp')
      .send({ phone, otp: lastCode(t, phone) })
      .expect(200);

    const login = request(t.app).post('/auth/login');
    if (lang !== undefined) login.set('Accept-Language', lang);
    const loggedIn = await login.send({ phone });
    expect([loggedIn.status, loggedIn.body]).toEqual([200, { message: expected }]);
  });
});
