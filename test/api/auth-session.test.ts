import { createHash } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { ProfileUser, SessionResponse, SignInResponse } from '../../src/auth/schemas';
import type { FieldIssue } from '../../src/http/errors';
import { bearer, CONSENTS, createTestApp, errorCode, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

type Session = z.infer<typeof SessionResponse>;
type Profile = z.infer<typeof ProfileUser>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const code = errorCode;

async function webSignIn() {
  const phone = newPhone();
  await request(t.app).post('/auth/register').send({ phone, name: 'Web', consents: CONSENTS }).expect(201);
  const res = await request(t.app)
    .post('/auth/verify-otp')
    .set('X-Client-Type', 'web')
    .send({ phone, otp: lastCode(t, phone) });
  const cookie = (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  return { cookie, phone };
}

describe('sessions', () => {
  it('GET /auth/session works with a mobile bearer token', async () => {
    const { token, userId, phone } = await signUp(t);
    const res = typed<Session>(await request(t.app).get('/auth/session').set(bearer(token)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      session: { clientType: 'mobile', expiresAt: match.any(String) },
      user: {
        id: userId,
        phone,
        email: null,
        name: 'Sara',
        appRole: 'end_user',
        identityType: 'citizen',
        isActive: true,
        createdAt: match.stringMatching(/Z$/),
        managedAreas: null,
        managedAreasWrite: null,
      },
    });
  });

  it('GET /auth/session works with the web cookie', async () => {
    const { cookie } = await webSignIn();
    const res = typed<Session>(await request(t.app).get('/auth/session').set('Cookie', cookie));
    expect(res.status).toBe(200);
    expect(res.body.session.clientType).toBe('web');
  });

  it('carries managed areas for admin users only', async () => {
    const { token, userId } = await signUp(t);
    await t.db.query(`update users set app_role = 'admin', managed_areas = '{b2b}', managed_areas_write = '{}' where id = $1`, [userId]);
    const res = typed<Session>(await request(t.app).get('/auth/session').set(bearer(token)));
    expect(res.body.user).toMatchObject({ appRole: 'admin', managedAreas: ['b2b'], managedAreasWrite: [] });
  });

  it.each([
    ['no credentials', {}],
    ['a malformed token', bearer('not-a-jwt')],
    ['a token signed with another key', bearer('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl')],
    ['an unsigned token', bearer('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4IiwianRpIjoieCJ9.')],
    ['an unknown cookie value', { Cookie: 'activation-sys-session=abc' }],
  ])('answers AUTH_REQUIRED for %s', async (_label, headers) => {
    const res = await request(t.app)
      .get('/auth/session')
      .set(headers as Record<string, string>);
    expect([res.status, code(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('answers AUTH_SESSION_EXPIRED once the session has expired', async () => {
    const { cookie } = await webSignIn();
    t.clock.advance(3600_000 + 1000);
    const res = await request(t.app).get('/auth/session').set('Cookie', cookie);
    expect([res.status, code(res)]).toEqual([401, 'AUTH_SESSION_EXPIRED']);
  });

  it('rejects a token whose session row was revoked', async () => {
    const { token, userId } = await signUp(t);
    await t.db.query('update sessions set revoked_at = now() where user_id = $1', [userId]);
    expect(code(await request(t.app).get('/auth/session').set(bearer(token)))).toBe('AUTH_REQUIRED');
  });

  it('answers AUTH_ACCOUNT_DEACTIVATED for a deactivated account with a live token', async () => {
    const { token, userId } = await signUp(t);
    await t.db.query('update users set is_active = false where id = $1', [userId]);
    const res = await request(t.app).get('/auth/me').set(bearer(token));
    expect([res.status, code(res)]).toEqual([401, 'AUTH_ACCOUNT_DEACTIVATED']);
  });
});

describe('POST /auth/logout', () => {
  it('mobile: blocklists the token by SHA-256 until it would expire', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/auth/logout').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: match.any(String) });
    const rows = await t.db.query<{ token_hash: string; expires_at: Date }>('select token_hash, expires_at from token_blocklist');
    const hash = createHash('sha256').update(token).digest('hex');
    const row = rows.find((r) => r.token_hash === hash);
    expect(row).toBeDefined();
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
    expect(new Date(row!.expires_at).getTime()).toBe(exp * 1000);
    expect(code(await request(t.app).get('/auth/session').set(bearer(token)))).toBe('AUTH_REQUIRED');
  });

  it('web: clears the cookie and ends the session', async () => {
    const { cookie } = await webSignIn();
    const res = await request(t.app).post('/auth/logout').set('Cookie', cookie);
    expect(res.status).toBe(200);
    const cleared = (res.headers['set-cookie'] as unknown as string[])[0];
    expect(cleared).toMatch(/^activation-sys-session=; Max-Age=0; Path=\/; HttpOnly; Secure; Priority=High; SameSite=Strict$/);
    expect(code(await request(t.app).get('/auth/session').set('Cookie', cookie))).toBe('AUTH_REQUIRED');
  });

  it('requires a session', async () => {
    expect(code(await request(t.app).post('/auth/logout'))).toBe('AUTH_REQUIRED');
  });

  it.each([
    ['en', 'Signed out'],
    ['ar', 'تم تسجيل الخروج'],
    ['en;q=0.1, ar', 'تم تسجيل الخروج'],
  ])('answers the message in the Accept-Language %j', async (lang, expected) => {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/auth/logout').set(bearer(token)).set('Accept-Language', lang);
    expect([res.status, res.body]).toEqual([200, { message: expected }]);
  });
});

describe('POST /auth/consents', () => {
  it('records the three consents', async () => {
    const { token, userId } = await signUp(t);
    const res = await request(t.app).post('/auth/consents').set(bearer(token)).send({ consents: CONSENTS });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { recorded: true } });
    expect(await t.db.query('select 1 from consents where user_id = $1', [userId])).toHaveLength(6);
  });

  it('answers AUTH_CONSENT_REQUIRED for an incomplete list and AUTH_REQUIRED without a session', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app)
      .post('/auth/consents')
      .set(bearer(token))
      .send({ consents: CONSENTS.slice(1) });
    expect([res.status, code(res)]).toEqual([401, 'AUTH_CONSENT_REQUIRED']);
    expect(code(await request(t.app).post('/auth/consents').send({ consents: CONSENTS }))).toBe('AUTH_REQUIRED');
  });

  it('answers VALIDATION_ERROR for a body that is not an object', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/auth/consents').set(bearer(token)).set('Content-Type', 'application/json').send('[1]');
    expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('GET and PUT /auth/me', () => {
  it('returns the profile decrypted', async () => {
    const email = `me-${Date.now()}@example.com`;
    const { token, userId, phone } = await signUp(t, { phone: newPhone(), email });
    const res = await request(t.app).get('/auth/me').set(bearer(token));
    expect(res.body).toEqual({
      id: userId,
      phone,
      email,
      name: 'Sara',
      appRole: 'end_user',
      identityType: 'citizen',
      isActive: true,
      createdAt: match.any(String),
    });
    expect(code(await request(t.app).get('/auth/me'))).toBe('AUTH_REQUIRED');
  });

  it('changes the name and the e-mail at once ("Response 200: the updated user object"), its code proves it, and null removes it', async () => {
    const { token } = await signUp(t);
    const email = `new-${Date.now()}@example.com`;
    const updated = await request(t.app).put('/auth/me').set(bearer(token)).send({ name: 'Noura', email });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Noura', email });
    const confirmed = await request(t.app)
      .post('/auth/verify-change-email')
      .set(bearer(token))
      .send({ newEmail: email, otp: lastCode(t, email) });
    expect(typed<{ data: Profile }>(confirmed).body.data).toMatchObject({ name: 'Noura', email });
    const removed = typed<Profile>(await request(t.app).put('/auth/me').set(bearer(token)).send({ email: null }));
    expect(removed.body.email).toBeNull();
    expect(typed<Profile>(await request(t.app).get('/auth/me').set(bearer(token))).body.email).toBeNull();
  });

  it.each([
    ['an unknown field', { appRole: 'super_admin' }, 'appRole'],
    ['a phone', { phone: '+966500000000' }, 'phone'],
    ['an empty name', { name: '' }, 'name'],
    ['a bad e-mail', { email: 'nope' }, 'email'],
  ])('rejects %s with VALIDATION_ERROR and changes nothing', async (_label, body, path) => {
    const { token } = await signUp(t);
    const res = await request(t.app).put('/auth/me').set(bearer(token)).send(body);
    expect(res.status).toBe(400);
    expect(errorOf<FieldIssue[]>(res).details.map((d) => d.path)).toContain(path);
    expect((await request(t.app).get('/auth/me').set(bearer(token))).body).toMatchObject({ appRole: 'end_user', name: 'Sara' });
  });

  it('refuses an e-mail registered to another account', async () => {
    const email = `owned-${Date.now()}@example.com`;
    await signUp(t, { email });
    const { token } = await signUp(t);
    const res = await request(t.app).put('/auth/me').set(bearer(token)).send({ email });
    expect(res.status).toBe(400);
    expect(errorOf<FieldIssue[]>(res).details).toEqual([{ path: 'email', message: match.any(String) }]);
  });

  it('refuses to remove the only credential', async () => {
    const { token } = await signUp(t, { email: `only-${Date.now()}@example.com` });
    const res = await request(t.app).put('/auth/me').set(bearer(token)).send({ email: null });
    expect([res.status, code(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('client type detection', () => {
  it('X-Client-Type wins over the user agent', async () => {
    const phone = newPhone();
    await request(t.app).post('/auth/register').send({ phone, name: 'Hdr', consents: CONSENTS }).expect(201);
    const res = typed<z.infer<typeof SignInResponse>>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set('User-Agent', 'okhttp/4')
        .set('X-Client-Type', 'web')
        .send({ phone, otp: lastCode(t, phone) }),
    );
    expect(res.body.session.clientType).toBe('web');
    expect(res.headers['set-cookie']).toBeDefined();
  });

  it('a mobile token used with MOBILE header shape works as bearer only', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app).get('/auth/session').set(MOBILE).set('Cookie', `activation-sys-session=${token}`);
    expect(res.status).toBe(200);
  });
});
