import request from 'supertest';
import type { z } from 'zod';
import type { SessionResponse } from '../../src/auth/schemas';
import { bearer, createTestApp, errorCode, eventually, signUp, type TestApp } from '../helpers/app';
import { typed } from '../helpers/responses';

// The cache is on here (other files turn it off): these tests prove it is served,
// and that any change to a user, a session or the blocklist evicts at once via NOTIFY.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SESSION_CACHE_SECONDS: '60' } });
});
afterAll(() => t.close());

const session = (token: string) => request(t.app).get('/auth/session').set(bearer(token));

/** Counts session lookups that reach Postgres. */
function countLookups() {
  const spy = jest.spyOn(t.db.pool, 'query');
  return {
    count: () => spy.mock.calls.filter(([q]) => typeof q === 'object' && (q as { name?: string }).name === 'authenticate-session').length,
    restore: () => spy.mockRestore(),
  };
}

async function warm(token: string) {
  // The listener connects in the background; until it listens, nothing is cached.
  await eventually(async () => {
    await session(token).expect(200);
    const lookups = countLookups();
    try {
      await session(token).expect(200);
      expect(lookups.count()).toBe(0);
    } finally {
      lookups.restore();
    }
  });
}

describe('session cache', () => {
  it('serves repeated requests without a database lookup', async () => {
    const { token } = await signUp(t);
    await warm(token);
    const lookups = countLookups();
    for (let i = 0; i < 5; i += 1) await session(token).expect(200);
    expect(lookups.count()).toBe(0);
    lookups.restore();
  });

  it('forgets a session revoked in the database by anyone', async () => {
    const { token, userId } = await signUp(t);
    await warm(token);
    await t.db.query('update sessions set revoked_at = now() where user_id = $1', [userId]);
    await eventually(async () => expect(errorCode(await session(token))).toBe('AUTH_REQUIRED'), 2_000);
  });

  it('forgets a user deactivated in the database', async () => {
    const { token, userId } = await signUp(t);
    await warm(token);
    await t.db.query('update users set is_active = false where id = $1', [userId]);
    await eventually(async () => expect(errorCode(await session(token))).toBe('AUTH_ACCOUNT_DEACTIVATED'), 2_000);
  });

  it('forgets a token added to the blocklist', async () => {
    const { token } = await signUp(t);
    await warm(token);
    const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    await t.db.query(`insert into token_blocklist (token_hash, expires_at, created_at) values ($1, now() + interval '1 day', now())`, [
      createHash('sha256').update(token).digest('hex'),
    ]);
    await eventually(async () => expect(errorCode(await session(token))).toBe('AUTH_REQUIRED'), 2_000);
  });

  it('ends a logged-out session at once in the same instance', async () => {
    const { token } = await signUp(t);
    await warm(token);
    await request(t.app).post('/auth/logout').set(bearer(token)).expect(200);
    expect(errorCode(await session(token))).toBe('AUTH_REQUIRED');
  });

  it('shows profile changes', async () => {
    const { token } = await signUp(t);
    await warm(token);
    await request(t.app).put('/auth/me').set(bearer(token)).send({ name: 'Renamed' }).expect(200);
    await eventually(
      async () => expect(typed<z.infer<typeof SessionResponse>>(await session(token)).body.user.name).toBe('Renamed'),
      2_000,
    );
  });

  it('still expires sessions by the clock', async () => {
    const { token } = await signUp(t);
    await warm(token);
    t.clock.advance(31 * 24 * 3600_000);
    expect(errorCode(await session(token))).toBe('AUTH_SESSION_EXPIRED');
  });
});
