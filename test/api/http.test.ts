import express from 'express';
import request from 'supertest';
import type { z } from 'zod';
import { createApp } from '../../src/app';
import type { SignInResponse } from '../../src/auth/schemas';
import { errorHandler } from '../../src/http/error-middleware';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender } from '../../src/providers/messages';
import {
  CONSENTS,
  createTestApp,
  errorCode,
  eventually,
  lastCode,
  logEntries,
  MOBILE,
  newPhone,
  signUp,
  type TestApp,
} from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

/** The parts of the OpenAPI document these tests read. */
interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { description: string }>; requestBody: { content: Record<string, { schema: unknown }> } }>
  >;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '900' } });
});
afterAll(() => t.close());

// Each test uses its own client IP (X-Forwarded-For from loopback is trusted) so the small limit applies per test.
let ipCounter = 10;
const fromIp = () => {
  ipCounter += 1;
  return { 'X-Forwarded-For': `203.0.113.${ipCounter}` };
};

describe('global rate limit', () => {
  it('allows the configured number of requests per IP, then answers 429 RATE_LIMIT_EXCEEDED with the three headers', async () => {
    const ip = fromIp();
    const started = Math.floor(Date.now() / 1000);
    // The window opens with the first request: 900 s after a moment between `started` and its answer
    // (a loaded machine may take more than a second to answer it).
    let firstAnswered = Number.POSITIVE_INFINITY;
    for (let i = 1; i <= 5; i += 1) {
      const res = await request(t.app).get('/auth/session').set(ip);
      if (i === 1) firstAnswered = Math.ceil(Date.now() / 1000);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(started + 899);
      expect(reset).toBeLessThanOrEqual(firstAnswered + 901);
    }
    const limited = await request(t.app).get('/auth/session').set(ip);
    expect(limited.status).toBe(429);
    expect(errorCode(limited)).toBe('RATE_LIMIT_EXCEEDED');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Another IP is unaffected; counters live in Postgres.
    expect((await request(t.app).get('/auth/session').set(fromIp())).status).toBe(401);
    // Counts reach the shared Postgres counter within one sync interval.
    await eventually(async () => {
      const [row] = await t.db.query<{ points: number }>('select points from rate_limits where key = $1', ['global:203.0.113.11']);
      expect(row?.points).toBe(6);
    });
  });

  it('holds exactly under parallel requests', async () => {
    const ip = fromIp();
    const results = await Promise.all(Array.from({ length: 12 }, () => request(t.app).get('/auth/session').set(ip)));
    expect(results.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it('shares counts across API instances through Postgres', async () => {
    const second = createApp({
      config: t.config,
      db: t.db.sql,
      logger: createLogger('silent'),
      messages: createMemoryMessageSender(),
    });
    try {
      const ip = fromIp();
      for (let i = 0; i < 3; i += 1) await request(t.app).get('/healthz-nope').set(ip);
      await eventually(async () => {
        const [row] = await t.db.query<{ points: number }>('select points from rate_limits where key = $1', [
          `global:${ip['X-Forwarded-For']}`,
        ]);
        expect(row?.points).toBe(3);
      });
      // The other instance starts from the shared count: 2 left, then limited.
      expect((await request(second).get('/nope').set(ip)).headers['x-ratelimit-remaining']).toBe('1');
      expect((await request(second).get('/nope').set(ip)).headers['x-ratelimit-remaining']).toBe('0');
      expect((await request(second).get('/nope').set(ip)).status).toBe(429);
    } finally {
      await (second.locals.stop as () => Promise<void>)();
    }
  });
});

describe('error envelope and languages', () => {
  it('answers in English by default and in Arabic for Accept-Language: ar', async () => {
    const en = await request(t.app).get('/auth/me').set(fromIp());
    const ar = await request(t.app).get('/auth/me').set(fromIp()).set('Accept-Language', 'ar-SA,ar;q=0.9,en;q=0.8');
    expect(en.body).toEqual({ error: { code: 'AUTH_REQUIRED', message: 'Authentication required' } });
    expect(errorOf(ar).code).toBe('AUTH_REQUIRED');
    expect(errorOf(ar).message).toMatch(/[\u0600-\u06FF]/);
    expect(errorOf(ar).message).not.toBe(errorOf(en).message);
  });

  it('negotiates the error language with q-values', async () => {
    const ar = await request(t.app).get('/auth/me').set(fromIp()).set('Accept-Language', 'en;q=0.1, ar');
    expect(errorOf(ar).message).toBe('يلزم تسجيل الدخول');
    const fr = await request(t.app).get('/auth/me').set(fromIp()).set('Accept-Language', 'fr');
    expect(errorOf(fr).message).toBe('Authentication required');
  });

  it('localizes validation errors too', async () => {
    const ar = await request(t.app).post('/auth/login').set(fromIp()).set('Accept-Language', 'ar').send({ phone: 'x' });
    expect(errorOf(ar).code).toBe('VALIDATION_ERROR');
    expect(errorOf(ar).message).toMatch(/[\u0600-\u06FF]/);
  });

  it('answers unknown routes with NOT_FOUND 404', async () => {
    const res = await request(t.app).get('/nope').set(fromIp());
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe('NOT_FOUND');
  });

  it('answers unhandled failures with INTERNAL_ERROR and no stack trace or SQL', async () => {
    const app = express();
    app.get('/boom', () => {
      throw new Error('select * from users where secret = 1\n    at Object.<anonymous> (/src/x.ts:1:1)');
    });
    app.use(errorHandler);
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: match.any(String) } });
    expect(res.text).not.toMatch(/select|at Object|\.ts/);
  });
});

describe('logs', () => {
  it('writes one JSON line per request with a request id, and never an OTP, token, cookie or phone number', async () => {
    const phone = newPhone();
    const email = `logs-${Date.now()}@example.com`;
    const ip = fromIp();
    await request(t.app).post('/auth/register').set(ip).send({ phone, email, name: 'Logged', consents: CONSENTS }).expect(201);
    const otp = lastCode(t, phone);
    const web = await request(t.app).post('/auth/verify-otp').set(ip).set('X-Client-Type', 'web').send({ phone, otp });
    const cookie = (web.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    await request(t.app).get('/auth/session').set(ip).set('Cookie', cookie).expect(200);
    const ip2 = fromIp();
    await request(t.app).post('/auth/login').set(ip2).send({ phone }).expect(200);
    const mobile = typed<z.infer<typeof SignInResponse>>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(ip2)
        .set(MOBILE)
        .send({ phone, otp: lastCode(t, phone) }),
    );
    await request(t.app).get('/auth/me').set(ip2).set('Authorization', `Bearer ${mobile.body.session.token}`).expect(200);

    const requests = logEntries(t.logLines).filter((l) => l.req);
    expect(requests.length).toBeGreaterThanOrEqual(5);
    for (const line of requests) expect(line.req?.id).toEqual(match.any(String));
    const all = t.logLines.join('\n');
    for (const secret of [otp, lastCode(t, phone), phone, phone.slice(1), email, mobile.body.session.token, cookie.split('=')[1]]) {
      // A random 6-digit code may occur inside a line's epoch time or duration: only a standalone run counts.
      if (!secret) throw new Error('a secret the test meant to look for is missing');
      if (/^\d+$/.test(secret)) expect(all).not.toMatch(new RegExp(`(?<!\\d)${secret}(?!\\d)`));
      else expect(all).not.toContain(secret);
    }
  });
});

describe('request lines', () => {
  it('reuse a sane X-Request-Id and echo it, replace anything else, and log the path without its query', async () => {
    const kept = await request(t.app).get('/healthz?token=secret-in-query').set('X-Request-Id', 'client-req-0001');
    expect(kept.headers['x-request-id']).toBe('client-req-0001');
    const replaced = await request(t.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    const lines = logEntries(t.logLines).filter((l) => l.req);
    expect(lines.find((l) => l.req?.id === 'client-req-0001')).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', path: '/healthz' },
      res: { statusCode: 200 },
      responseTime: match.any(Number),
    });
    expect(lines.find((l) => l.req?.id === replaced.headers['x-request-id'])).toBeDefined();
    expect(t.logLines.join('\n')).not.toContain('secret-in-query');
  });
});

describe('health and OpenAPI', () => {
  it('GET /healthz answers while the process is up', async () => {
    expect((await request(t.app).get('/healthz')).body).toEqual({ status: 'ok' });
  });

  it('GET /readyz checks Postgres and Temporal', async () => {
    const ready = await request(t.app).get('/readyz');
    expect([ready.status, ready.body]).toEqual([
      200,
      { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' }, serving: { requests: true, workflowActions: true } },
    ]);
  });

  // Issue 22: "Readiness that says what the API can serve (Postgres required; Temporal reported, not fatal)":
  // a load balancer keeps the replica while Temporal is away (reads, sign-in, creates whose runs start later).
  it('GET /readyz with Temporal away: 200, degraded, workflow actions not served', async () => {
    const down = await createTestApp({ deps: { temporalReady: () => Promise.reject(new Error('down')) } });
    try {
      const res = await request(down.app).get('/readyz');
      expect([res.status, res.body]).toEqual([
        200,
        { status: 'degraded', checks: { postgres: 'ok', temporal: 'unavailable' }, serving: { requests: true, workflowActions: false } },
      ]);
    } finally {
      await down.close();
    }
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, and a docs page', async () => {
    const res = typed<OpenApiDocument>(await request(t.app).get('/openapi.json').set(fromIp()));
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/auth/register',
      '/auth/login',
      '/auth/verify-otp',
      '/auth/magic-link',
      '/auth/consents',
      '/auth/logout',
      '/auth/session',
      '/auth/me',
      '/auth/change-phone',
      '/auth/verify-change-phone',
      '/healthz',
      '/readyz',
    ]) {
      expect(paths).toContain(p);
    }
    const changePhone = res.body.paths['/auth/change-phone'].post;
    expect(changePhone.responses['409'].description).toContain('AUTH_PHONE_EXISTS');
    expect(res.body.paths['/auth/register'].post.requestBody.content['application/json'].schema).toBeDefined();
    const docs = await request(t.app).get('/docs').set(fromIp());
    expect(docs.text).toContain('swagger-ui');
    expect((await request(t.app).get('/docs/assets/swagger-ui-bundle.js').set(fromIp())).status).toBe(200);
  });
});

it('signUp helper yields a working bearer token', async () => {
  const { token } = await signUp(t);
  expect((await request(t.app).get('/auth/session').set(fromIp()).set('Authorization', `Bearer ${token}`)).status).toBe(200);
});
