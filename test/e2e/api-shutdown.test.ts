/**
 * Issue 22: "Readiness that says what the API can serve (Postgres required; Temporal reported, not fatal),
 * off at SIGTERM before a bounded drain". The compiled API as a real process, with no Temporal at all:
 * - /readyz answers 200 `degraded` while Temporal is away, and 503 `not_ready` once Postgres is;
 * - at SIGTERM readiness turns off at once (503 `stopping`) while the API still serves for
 *   SHUTDOWN_DELAY_SECONDS (the load balancer's time to notice), then stops accepting connections and lets
 *   the requests in flight finish within SHUTDOWN_DRAIN_SECONDS;
 * - a request still running at the drain deadline is cut, and the process exits anyway.
 * A request is kept in flight by a lock this test holds on the users table (registration reads it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { CONSENTS, eventually, newPhone } from '../helpers/app';
import { createTestDatabase, untilWaitingOnLock, type TestDatabase } from '../helpers/db';
import { compiledProcesses, exited, freePort } from '../helpers/processes';
import { DIST } from '../helpers/stack';

jest.setTimeout(90_000);

const processes = compiledProcesses(DIST);
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'api-shutdown-'));
});
afterAll(async () => {
  await processes.stopAll();
  rmSync(tmp, { recursive: true, force: true });
});

interface Api {
  child: ChildProcess;
  baseUrl: string;
  db: TestDatabase;
  output(): string;
}

/** The compiled API on a database of its own, with Temporal nowhere (a port nothing listens on). */
async function startApi(env: Record<string, string>): Promise<Api> {
  const db = await createTestDatabase(3);
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${db.name}`;
  const port = await freePort();
  const child = processes.start('src/main.js', {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: url.toString(),
    TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    MESSAGES_FILE: path.join(tmp, `messages-${port}.jsonl`),
    ...env,
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200), 30_000);
  return { child, baseUrl, db, output: () => output };
}

async function readiness(baseUrl: string) {
  const res = await fetch(`${baseUrl}/readyz`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; checks: Record<string, string>; serving: Record<string, boolean> },
  };
}

/** Holds `lock table users` in a transaction of its own until release(). */
async function lockUsers(db: TestDatabase): Promise<{ release(): Promise<void> }> {
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${db.name}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  await client.query('begin');
  await client.query('lock table users in access exclusive mode');
  return {
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

/** A registration: blocked while the users table is locked. */
function register(baseUrl: string) {
  return fetch(`${baseUrl}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone: newPhone(), name: 'Drain Test', consents: CONSENTS }),
  });
}

it('/readyz: degraded (200) while Temporal is away, not_ready (503) once Postgres is', async () => {
  const api = await startApi({ SHUTDOWN_DELAY_SECONDS: '0' });
  try {
    expect(await readiness(api.baseUrl)).toEqual({
      status: 200,
      body: {
        status: 'degraded',
        checks: { postgres: 'ok', temporal: 'unavailable' },
        serving: { requests: true, workflowActions: false },
      },
    });
    // Postgres away for this API: its database is gone.
    await api.db.drop();
    expect(await readiness(api.baseUrl)).toEqual({
      status: 503,
      body: {
        status: 'not_ready',
        checks: { postgres: 'unavailable', temporal: 'unavailable' },
        serving: { requests: false, workflowActions: false },
      },
    });
  } finally {
    api.child.kill('SIGTERM');
    await exited(api.child);
  }
});

it('at SIGTERM readiness turns off at once; requests in flight finish within the drain deadline; then it exits 0', async () => {
  const api = await startApi({ SHUTDOWN_DELAY_SECONDS: '2', SHUTDOWN_DRAIN_SECONDS: '10' });
  const lock = await lockUsers(api.db);
  try {
    const inFlight = register(api.baseUrl);
    await untilWaitingOnLock(api.db, '%users%');
    const signalledAt = Date.now();
    api.child.kill('SIGTERM');
    // Off at once, while the API still answers (the load balancer's time to notice).
    await eventually(async () => expect((await readiness(api.baseUrl)).body.status).toBe('stopping'), 1_000);
    const off = await readiness(api.baseUrl);
    expect(off.status).toBe(503);
    expect(Date.now() - signalledAt).toBeLessThan(2_000);
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
    // After the delay it accepts no new connection, and still waits for the one in flight.
    await eventually(
      async () =>
        expect(
          await fetch(`${api.baseUrl}/healthz`).then(
            () => 'answered',
            () => 'refused',
          ),
        ).toBe('refused'),
      5_000,
    );
    expect(api.child.exitCode).toBeNull();
    await lock.release();
    const answer = await inFlight;
    expect(answer.status).toBe(201);
    expect(await exited(api.child)).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
  } finally {
    await lock.release().catch(() => undefined);
    await api.db.drop().catch(() => undefined);
  }
});

it('a request still running at the drain deadline is cut, and the process exits anyway', async () => {
  const api = await startApi({ SHUTDOWN_DELAY_SECONDS: '0', SHUTDOWN_DRAIN_SECONDS: '1' });
  const lock = await lockUsers(api.db);
  try {
    const inFlight = register(api.baseUrl).then(
      (res) => res.status,
      () => 'cut',
    );
    await untilWaitingOnLock(api.db, '%users%');
    const signalledAt = Date.now();
    api.child.kill('SIGTERM');
    expect(await exited(api.child)).toBe(0);
    // The drain deadline (1 s), plus at most a few seconds to close the pool and Temporal's connection.
    expect(Date.now() - signalledAt).toBeLessThan(8_000);
    expect(await inFlight).toBe('cut');
    expect(api.output()).toContain('drain deadline passed');
  } finally {
    await lock.release();
    await api.db.drop().catch(() => undefined);
  }
});
