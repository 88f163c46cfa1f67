/**
 * Issue 32: "A client cannot tell a 500 from a bug: a database that is away is SERVICE_UNAVAILABLE 503
 * with Retry-After." The real app reaches its real database through a loopback TCP proxy that the test
 * cuts (open connections dropped, new ones refused) and restores on the same port.
 */
import { Pool } from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDb, type Db } from '../../src/db/sql';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { CONSENTS, errorCode } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { seedCatalog } from '../helpers/activations';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(60_000);

const messages = createMemoryMessageSender();

let db: TestDatabase;
let pool: Pool;
let app: ReturnType<typeof createApp>;
let proxy: TcpProxy;

const register = (phone: string) => request(app).post('/auth/register').send({ phone, name: 'Away Test', consents: CONSENTS });

beforeAll(async () => {
  db = await createTestDatabase();
  await seedCatalog(db);
  proxy = await startTcpProxy(testDatabaseServer());
  pool = new Pool({ connectionString: throughProxy(proxy, db.name), max: 4, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_MAX: '1000000', SESSION_CACHE_SECONDS: '0', PORTAL_CACHE_MS: '0' });
  app = createApp({ config, db: createDb(pool), logger: createLogger('silent'), messages });
});
afterAll(async () => {
  await (app?.locals.stop as (() => Promise<void>) | undefined)?.();
  await proxy?.close();
  await pool?.end().catch(() => undefined);
  await db?.drop();
});

it('answers SERVICE_UNAVAILABLE 503 with Retry-After while Postgres is away, writes nothing, and serves again once it is back', async () => {
  expect((await request(app).get('/operators')).status).toBe(200);
  // The document says so: every route's 503 carries Retry-After.
  const doc = (await request(app).get('/openapi.json')).body as {
    paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  };
  expect(Object.keys(doc.paths['/operators'].get.responses['503'].headers ?? {})).toContain('Retry-After');
  expect(Object.keys(doc.paths['/auth/register'].post.responses['503'].headers ?? {})).toContain('Retry-After');

  await proxy.cut();
  const read = await request(app).get('/operators');
  expect([read.status, errorCode(read), read.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '5']);
  const write = await register('+966512399001');
  expect([write.status, errorCode(write), write.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '5']);

  await proxy.restore();
  expect(await db.query(`select 1 from users`)).toEqual([]);
  // Connections the cut broke left the pool: the same request succeeds at once.
  expect((await register('+966512399001')).status).toBe(201);
  expect((await request(app).get('/operators')).status).toBe(200);
});

describe('a request that loses Postgres inside its transaction changed nothing: its retry gets the one result', () => {
  let flaky: ReturnType<typeof createApp>;
  const failing = { next: false };
  beforeAll(() => {
    const real = createDb(db.pool);
    // The next transaction does its work, then its connection is lost before the commit (rolled back).
    const lossy: Db = {
      ...real,
      transaction(work, options) {
        if (!failing.next) return real.transaction(work, options);
        failing.next = false;
        return real.transaction(async (tx) => {
          await work(tx);
          throw new Error('Connection terminated unexpectedly');
        }, options);
      },
    };
    const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_MAX: '1000000', SESSION_CACHE_SECONDS: '0', PORTAL_CACHE_MS: '0' });
    flaky = createApp({ config, db: lossy, logger: createLogger('silent'), messages });
  });
  afterAll(() => (flaky.locals.stop as () => Promise<void>)());

  it('verify-otp: 503, then the same code signs in (the code is consumed with the session, not before)', async () => {
    const phone = '+966512399002';
    expect((await request(flaky).post('/auth/register').send({ phone, name: 'Retry', consents: CONSENTS })).status).toBe(201);
    const otp = /\b(\d{6})\b/.exec(messages.messages.filter((m) => m.to === phone).at(-1)!.text)![1];
    failing.next = true;
    const lost = await request(flaky).post('/auth/verify-otp').set('X-Client-Type', 'mobile').send({ phone, otp });
    expect([lost.status, errorCode(lost)]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await db.query(`select 1 from sessions s join users u on u.id = s.user_id where u.verified_at is not null`)).toEqual([]);
    const retried = await request(flaky).post('/auth/verify-otp').set('X-Client-Type', 'mobile').send({ phone, otp });
    expect(retried.status).toBe(200);
  });
});
