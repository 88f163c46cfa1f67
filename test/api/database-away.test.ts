/**
 * Issue 32: "A client cannot tell a 500 from a bug: a database that is away is SERVICE_UNAVAILABLE 503
 * with Retry-After." The real app reaches its real database through a loopback TCP proxy that the test
 * cuts (open connections dropped, new ones refused) and restores on the same port.
 */
import { Pool } from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDb } from '../../src/db/sql';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { CONSENTS, errorCode } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { seedCatalog } from '../helpers/activations';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(60_000);

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
  app = createApp({ config, db: createDb(pool), logger: createLogger('silent'), messages: createMemoryMessageSender() });
});
afterAll(async () => {
  await (app?.locals.stop as (() => Promise<void>) | undefined)?.();
  await proxy?.close();
  await pool?.end().catch(() => undefined);
  await db?.drop();
});

it('answers SERVICE_UNAVAILABLE 503 with Retry-After while Postgres is away, writes nothing, and serves again once it is back', async () => {
  expect((await request(app).get('/operators')).status).toBe(200);

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
