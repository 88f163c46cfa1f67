/**
 * Issue 32, item 4: "The listeners that keep caches true (sessions, the portal's kept reads, the relays'
 * wake-ups) survive a half-open connection: keepalive and a periodic probe that reconnects and forgets
 * the cache; a reconnect forgets everything kept." The LISTEN connection goes through a loopback TCP
 * proxy the test freezes (the connection stays open, nothing passes: a half-open peer) and restores.
 */
import { Pool } from 'pg';
import { createSessionCache } from '../../src/auth/session-cache';
import type { Principal } from '../../src/http/principal';
import { createListener, ListenerProbeTimeout, type Listener } from '../../src/db/listener';
import { eventually } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(30_000);

let db: TestDatabase;
let proxy: TcpProxy;
let pool: Pool;
const PROBE = { probeIntervalMs: 200, probeTimeoutMs: 300 };

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startTcpProxy(testDatabaseServer());
  pool = new Pool({ connectionString: throughProxy(proxy, db.name), max: 4, connectionTimeoutMillis: 1_000 });
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await proxy?.close();
  await pool?.end().catch(() => undefined);
  await db?.drop();
});
afterEach(() => proxy.restore());

it('finds a silent connection by its probe, tells its owner, and listens again once the server answers', async () => {
  const heard: string[] = [];
  const events: string[] = [];
  const listener: Listener = createListener({
    pool,
    channel: 'listener_test',
    onNotification: (payload) => heard.push(payload),
    onListening: () => events.push('listening'),
    onLost: (err) => events.push(err instanceof ListenerProbeTimeout ? 'lost: probe' : `lost: ${String(err)}`),
    ...PROBE,
    retryMs: 100,
  });
  try {
    await eventually(() => expect(listener.listening).toBe(true), 5_000);
    await db.query(`select pg_notify('listener_test', 'one')`);
    await eventually(() => expect(heard).toEqual(['one']), 5_000);

    proxy.freeze();
    await eventually(() => expect(events).toContain('lost: probe'), 5_000);
    expect(listener.listening).toBe(false);
    await db.query(`select pg_notify('listener_test', 'unheard')`);

    await proxy.restore();
    await eventually(() => expect(events.filter((e) => e === 'listening')).toHaveLength(2), 10_000);
    await db.query(`select pg_notify('listener_test', 'two')`);
    await eventually(() => expect(heard).toEqual(['one', 'two']), 5_000);
  } finally {
    await listener.stop();
  }
});

it('the session cache serves nothing kept once its listener goes silent, and starts from nothing after the reconnect', async () => {
  const errors: unknown[] = [];
  const cache = createSessionCache({ pool, ttlMs: 60_000, onError: (err) => errors.push(err), ...PROBE });
  const principal = { user: { id: 'user-1' } } as unknown as Omit<Principal, 'token'>;
  try {
    await eventually(() => {
      cache.set('token-1', principal, cache.mark(), null);
      expect(cache.get('token-1', null)).toBe(principal);
    }, 5_000);

    proxy.freeze();
    await eventually(() => expect(cache.get('token-1', null)).toBeUndefined(), 5_000);
    expect(errors.some((err) => err instanceof ListenerProbeTimeout)).toBe(true);

    await proxy.restore();
    // Listening again, it holds nothing from before: the entry must be read and stored anew.
    await eventually(() => {
      const since = cache.mark();
      expect(cache.get('token-1', null)).toBeUndefined();
      cache.set('token-2', principal, since, null);
      expect(cache.get('token-2', null)).toBe(principal);
    }, 10_000);
  } finally {
    await cache.stop();
  }
});
