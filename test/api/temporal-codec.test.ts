// The codec endpoint the Temporal UI calls (src/temporal-codec/routes.ts): super_admin only,
// from the UI's origin with the web session cookie (CORS with credentials), rate limited.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import request from 'supertest';
import { parseOrigins } from '../../src/http/cors';
import { AesGcmPayloadCodec, KEY_ID_METADATA_KEY, type PayloadKey } from '../../src/temporal/codec';
import { bearer, createTestApp, lastCode, logEntries, newPhone, signUp, type TestApp } from '../helpers/app';
import { errorOf } from '../helpers/responses';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const OTHER_UI_ORIGIN = 'http://localhost:8233';
const FOREIGN_ORIGIN = 'http://evil.example';
const ID_NUMBER = '1098765430';

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const spec = (...keys: PayloadKey[]) => keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
const [current, previous] = [key('2026-02'), key('2025-08')];

/** Proto JSON, as the UI sends payloads. */
const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
const fromJson = (p: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});
const value = (p: { metadata: Record<string, string>; data: string }) => defaultPayloadConverter.fromPayload(fromJson(p));
const plain = (v: unknown) => defaultPayloadConverter.toPayload(v);
type Payloads = { payloads: Array<{ metadata: Record<string, string>; data: string }> };

let t: TestApp;
let admin: { token: string; userId: string };
beforeAll(async () => {
  t = await createTestApp({ env: { TEMPORAL_PAYLOAD_KEYS: spec(current, previous), RATE_LIMIT_MAX: '500' } });
  admin = await signUp(t, { name: 'Ops' });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [admin.userId]);
});
afterAll(() => t?.close());

const decode = (body: unknown) =>
  request(t.app)
    .post('/temporal-codec/decode')
    .set('X-Namespace', 'default')
    .send(body as object);

/** Signs in as a browser does: the session is the `activation-sys-session` cookie. */
async function webCookie(phone: string): Promise<string> {
  expect((await request(t.app).post('/auth/login').send({ phone })).status).toBe(200);
  const res = await request(t.app)
    .post('/auth/verify-otp')
    .set('X-Client-Type', 'web')
    .send({ phone, otp: lastCode(t, phone) });
  expect(res.status).toBe(200);
  const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('activation-sys-session='));
  return cookie!.split(';')[0];
}

describe('POST /temporal-codec/decode', () => {
  it('takes a body without payloads as none (proto JSON leaves an empty list out: the CLI querying a workflow sends {})', async () => {
    for (const path of ['/temporal-codec/encode', '/temporal-codec/decode']) {
      const res = await request(t.app).post(path).set(bearer(admin.token)).send({});
      expect([res.status, res.body]).toEqual([200, { payloads: [] }]);
    }
  });

  it('decrypts for a super_admin: payloads of the current and of an older key, and leaves plain ones as they are', async () => {
    const [byCurrent] = await new AesGcmPayloadCodec([current]).encode([plain({ idNumber: ID_NUMBER })]);
    const [byPrevious] = await new AesGcmPayloadCodec([previous]).encode([plain('activated')]);
    const untouched = plain({ paymentId: 'p1' });

    const res = await decode({ payloads: [byCurrent, byPrevious, untouched].map(toJson) }).set(bearer(admin.token));

    expect(res.status).toBe(200);
    const body = res.body as Payloads;
    expect(body.payloads.map(value)).toEqual([{ idNumber: ID_NUMBER }, 'activated', { paymentId: 'p1' }]);
    expect(body.payloads[0].metadata).toEqual({ [METADATA_ENCODING_KEY]: Buffer.from('json/plain').toString('base64') });
    // Outside the per-IP limit: the UI sends one request per payload group of a history.
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    // The operator's read is logged (who, how many), never what was read.
    const logged = logEntries(t.logLines)
      .filter((l) => l.msg === 'temporal payloads decoded')
      .at(-1);
    expect(logged).toMatchObject({ userId: admin.userId, namespace: 'default', payloads: 3, encrypted: 2 });
    expect(t.logLines.join('\n')).not.toContain(ID_NUMBER);
  });

  it('answers the UI in the browser: the session cookie from the UI origin, with CORS headers for that origin', async () => {
    const phone = newPhone();
    const ops = await signUp(t, { phone, name: 'Browser Ops' });
    await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [ops.userId]);
    const cookie = await webCookie(phone);
    const [encrypted] = await new AesGcmPayloadCodec([current]).encode([plain({ idNumber: ID_NUMBER })]);

    for (const origin of [UI_ORIGIN, OTHER_UI_ORIGIN]) {
      const res = await decode({ payloads: [toJson(encrypted)] })
        .set('Origin', origin)
        .set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(value((res.body as Payloads).payloads[0])).toEqual({ idNumber: ID_NUMBER });
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers.vary).toMatch(/Origin/);
    }
  });

  it('fails loudly on a payload it cannot decrypt: an unknown key id, or an altered ciphertext, each named', async () => {
    const [unknown] = await new AesGcmPayloadCodec([key('retired')]).encode([plain('x')]);
    const [altered] = await new AesGcmPayloadCodec([current]).encode([plain('y')]);
    const flipped = Buffer.from(altered.data!);
    flipped[flipped.length - 1] ^= 1;

    const res = await decode({ payloads: [toJson(plain('ok')), toJson(unknown), toJson({ ...altered, data: flipped })] }).set(
      bearer(admin.token),
    );

    expect([res.status, errorOf(res).code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toEqual([
      { path: 'payloads.1', message: expect.stringMatching(/key id "retired", which TEMPORAL_PAYLOAD_KEYS does not hold/) as unknown },
      { path: 'payloads.2', message: expect.stringMatching(/does not authenticate/) as unknown },
    ]);
  });

  it('refuses bodies that are not payloads in proto JSON', async () => {
    for (const body of [{ payloads: [{ data: 'not base64!' }] }, { payloads: [{ data: 'YQ==', extra: 1 }] }]) {
      const res = await decode(body).set(bearer(admin.token));
      expect([res.status, errorOf(res).code]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('answers AUTH_REQUIRED without a session and AUTH_FORBIDDEN for every role but super_admin (readable by the UI)', async () => {
    const anonymous = await decode({ payloads: [] }).set('Origin', UI_ORIGIN);
    expect([anonymous.status, errorOf(anonymous).code]).toEqual([401, 'AUTH_REQUIRED']);
    expect(anonymous.headers['access-control-allow-origin']).toBe(UI_ORIGIN);

    const user = await signUp(t);
    for (const role of ['end_user', 'b2b_admin', 'activation_officer', 'support', 'admin']) {
      await t.db.query('update users set app_role = $1 where id = $2', [role, user.userId]);
      const denied = await decode({ payloads: [] }).set(bearer(user.token)).set('Origin', UI_ORIGIN);
      expect([role, denied.status, errorOf(denied).code]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
      expect(denied.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    }
  });
});

describe('POST /temporal-codec/encode', () => {
  it('encrypts with the first configured key, and decode gives the payload back', async () => {
    const res = await request(t.app)
      .post('/temporal-codec/encode')
      .set(bearer(admin.token))
      .send({ payloads: [toJson(plain({ idNumber: ID_NUMBER }))] });

    expect(res.status).toBe(200);
    const [encrypted] = (res.body as Payloads).payloads;
    expect(Buffer.from(encrypted.metadata[KEY_ID_METADATA_KEY], 'base64').toString()).toBe('2026-02');
    expect(Buffer.from(encrypted.data, 'base64').includes(ID_NUMBER)).toBe(false);
    const back = await decode({ payloads: [encrypted] }).set(bearer(admin.token));
    expect(value((back.body as Payloads).payloads[0])).toEqual({ idNumber: ID_NUMBER });
  });

  it('is super_admin only', async () => {
    const user = await signUp(t);
    const res = await request(t.app).post('/temporal-codec/encode').set(bearer(user.token)).send({ payloads: [] });
    expect([res.status, errorOf(res).code]).toEqual([403, 'AUTH_FORBIDDEN']);
  });
});

describe('CORS', () => {
  const preflight = (path: string, origin: string) =>
    request(t.app)
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-namespace');

  it('answers the preflight from the UI origin for both codec paths', async () => {
    for (const path of ['/temporal-codec/decode', '/temporal-codec/encode']) {
      const res = await preflight(path, UI_ORIGIN);
      expect(res.status).toBe(204);
      expect(res.headers).toMatchObject({
        allow: 'OPTIONS, POST',
        'access-control-allow-origin': UI_ORIGIN,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Content-Type, X-Namespace',
        'access-control-max-age': '600',
      });
    }
  });

  it('gives a foreign origin no CORS headers, on the preflight or the call itself', async () => {
    const pre = await preflight('/temporal-codec/decode', FOREIGN_ORIGIN);
    expect(pre.status).toBe(204);
    expect(Object.keys(pre.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);

    const call = await decode({ payloads: [] }).set(bearer(admin.token)).set('Origin', FOREIGN_ORIGIN);
    expect(call.status).toBe(200); // a bearer caller is not a browser; a browser would not let the page read this
    expect(Object.keys(call.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('stays off every other route, even for the UI origin', async () => {
    const pre = await preflight('/auth/session', UI_ORIGIN).set('Access-Control-Request-Method', 'GET');
    expect(pre.status).toBe(204);
    expect(Object.keys(pre.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const res = await request(t.app).get('/auth/session').set(bearer(admin.token)).set('Origin', UI_ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('configuration: exact origins only (no path, no wildcard)', () => {
    expect(parseOrigins(' http://127.0.0.1:8233 , https://ops.example.com ', 'X')).toEqual([
      'http://127.0.0.1:8233',
      'https://ops.example.com',
    ]);
    for (const bad of ['http://127.0.0.1:8233/', '*', 'ops.example.com', 'ftp://ops.example.com', 'http://u:p@ops.example.com']) {
      expect(() => parseOrigins(bad, 'TEMPORAL_CODEC_CORS_ORIGINS')).toThrow(/TEMPORAL_CODEC_CORS_ORIGINS: .* is not an origin/);
    }
  });
});
