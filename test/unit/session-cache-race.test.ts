import { createDb } from '../../src/db/sql';
import { EventEmitter } from 'node:events';
import type { Pool, QueryConfig } from 'pg';
import { createSessionCache, type SessionCache } from '../../src/auth/session-cache';
import { createSessionService, type SessionService } from '../../src/auth/sessions';
import { sha256Hex } from '../../src/lib/crypto';

// The interleaving that kept a revoked session alive for the cache's whole TTL, ordered by hand:
// a request reads the live session row; the revocation commits and its NOTIFY is handled (the
// cache has nothing to evict yet); only then does the request store what it read. A fake pool
// answers the session query and lets the test run the revocation in between.

const USER_ID = '0b7c6a2e-3f1d-4c5e-9a8b-7c6d5e4f3a21';
const CONFIG = {
  JWT_SECRET: 'x'.repeat(32),
  JWT_ISSUER: 'activation-sys',
  JWT_AUDIENCE: 'activation-sys-clients',
  WEB_SESSION_SECONDS: 3600,
  MOBILE_SESSION_SECONDS: 30 * 24 * 3600,
  DATA_HASH_KEY: 'h'.repeat(32),
};

/** The LISTEN connection: the test delivers notifications on it. */
class FakeListener extends EventEmitter {
  query(): Promise<{ rows: never[] }> {
    return Promise.resolve({ rows: [] });
  }
  release(): void {}
}

/** The database as the session query sees it, with a hook that runs while a read is in flight. */
function fakeDatabase() {
  const listener = new FakeListener();
  const state = { revokedAt: null as Date | null, reads: 0, duringRead: undefined as (() => Promise<void> | void) | undefined };
  const row = () => ({
    clientType: 'mobile',
    expiresAt: new Date(Date.now() + 3600_000),
    revokedAt: state.revokedAt,
    blocked: false,
    deviceBlocked: false,
    id: USER_ID,
    phoneEncrypted: null,
    phoneHash: null,
    emailEncrypted: null,
    emailHash: null,
    name: 'Sara',
    appRole: 'end_user',
    identityType: 'citizen',
    isActive: true,
    blocklistedAt: null,
    verifiedAt: new Date(),
    managedAreas: null,
    managedAreasWrite: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  const pool = {
    connect: () => Promise.resolve(listener),
    query: async (config: QueryConfig) => {
      // Issuing a session writes its row; the session check is the read under test.
      if (config.name === 'auth.insert-session') return { rows: [], rowCount: 1 };
      if (config.name !== 'auth.session-check') throw new Error(`unexpected query ${config.text}`);
      state.reads += 1;
      const read = row(); // the snapshot this request sees
      const hook = state.duringRead;
      state.duringRead = undefined;
      await hook?.();
      return { rows: [read] };
    },
  };
  return { pool: pool as unknown as Pool, listener, state };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

let db: ReturnType<typeof fakeDatabase>;
let cache: SessionCache;
let sessions: SessionService;
beforeEach(async () => {
  db = fakeDatabase();
  cache = createSessionCache({ pool: db.pool, ttlMs: 60_000 });
  sessions = createSessionService({ db: createDb(db.pool), clock: () => new Date(), config: CONFIG, cache });
  await tick(); // the listener connects and LISTENs
});
afterEach(() => cache.stop());

/** Revocation committed after the request's read, its NOTIFY handled before the request stores. */
function revokeDuringTheRead(payload: string) {
  db.state.duringRead = () => {
    db.state.revokedAt = new Date();
    db.listener.emit('notification', { channel: 'auth_changed', payload });
  };
}

describe('session cache eviction races', () => {
  it('serves a verified session from the cache when nothing changed', async () => {
    const { token } = await sessions.issue(USER_ID, 'mobile');
    await sessions.authenticate(token);
    await sessions.authenticate(token);
    expect(db.state.reads).toBe(1);
  });

  it('does not keep a session revoked while it was being read (user notification)', async () => {
    const { token } = await sessions.issue(USER_ID, 'mobile');
    revokeDuringTheRead(`user:${USER_ID}`);
    // This request read the row before the revocation: it may still pass.
    await sessions.authenticate(token);
    // The next one must not be served the stale principal.
    await expect(sessions.authenticate(token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    expect(db.state.reads).toBe(2);
  });

  it('does not keep a token blocklisted while it was being read (token notification)', async () => {
    const { token } = await sessions.issue(USER_ID, 'mobile');
    revokeDuringTheRead(`token:${sha256Hex(token)}`);
    await sessions.authenticate(token);
    await expect(sessions.authenticate(token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it('does not keep what it read while the listener was lost and came back', async () => {
    const { token } = await sessions.issue(USER_ID, 'mobile');
    db.state.duringRead = async () => {
      db.state.revokedAt = new Date();
      // The revocation's NOTIFY is lost with the connection; the listener is back (after 1 s) before the read answers.
      db.listener.emit('end');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    };
    await sessions.authenticate(token);
    await expect(sessions.authenticate(token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
  });
});
