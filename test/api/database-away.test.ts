/**
 * Issue 32: "A client cannot tell a 500 from a bug: a database that is away is SERVICE_UNAVAILABLE 503
 * with Retry-After." The real app reaches its real database through a loopback TCP proxy that the test
 * cuts (open connections dropped, new ones refused) and restores on the same port.
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
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

jest.setTimeout(60_000);

let db: TestDatabase;
let pool: Pool;
let app: ReturnType<typeof createApp>;
let proxy: Server | undefined;
let port = 0;
const sockets = new Set<Socket>();

/** Forwards loopback connections to the test database's server. */
async function proxyUp(target: { host: string; port: number }): Promise<void> {
  proxy = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy!.listen(port, '127.0.0.1', resolve));
  port = (proxy!.address() as AddressInfo).port;
}
async function proxyDown(): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => proxy!.close(() => resolve()));
  proxy = undefined;
}

const target = () => {
  const real = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  return { host: real.hostname, port: Number(real.port) };
};
const register = (phone: string) => request(app).post('/auth/register').send({ phone, name: 'Away Test', consents: CONSENTS });

beforeAll(async () => {
  db = await createTestDatabase();
  await seedCatalog(db);
  await proxyUp(target());
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.port = String(port);
  url.pathname = `/${db.name}`;
  pool = new Pool({ connectionString: url.toString(), max: 4, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_MAX: '1000000', SESSION_CACHE_SECONDS: '0', PORTAL_CACHE_MS: '0' });
  app = createApp({ config, db: createDb(pool), logger: createLogger('silent'), messages: createMemoryMessageSender() });
});
afterAll(async () => {
  await (app?.locals.stop as (() => Promise<void>) | undefined)?.();
  if (proxy) await proxyDown();
  await pool?.end().catch(() => undefined);
  await db?.drop();
});

it('answers SERVICE_UNAVAILABLE 503 with Retry-After while Postgres is away, writes nothing, and serves again once it is back', async () => {
  expect((await request(app).get('/operators')).status).toBe(200);

  await proxyDown();
  const read = await request(app).get('/operators');
  expect([read.status, errorCode(read), read.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '5']);
  const write = await register('+966512399001');
  expect([write.status, errorCode(write), write.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '5']);

  await proxyUp(target());
  expect(await db.query(`select 1 from users`)).toEqual([]);
  // Connections the cut broke left the pool: the same request succeeds at once.
  expect((await register('+966512399001')).status).toBe(201);
  expect((await request(app).get('/operators')).status).toBe(200);
});
