// What the end-to-end tests share: a Temporal dev server with the search attributes, a migrated test
// database with the demo catalog, a temp folder for the message sink, and the environment the compiled
// API and worker run with (configured payload keys, not the development key: the test's client shares them).
// The dev server keeps its state in a SQLite file on a fixed port, so a test can stop it and start it
// again (an outage, not a new server).
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { dataConverterFromConfig } from '../../src/temporal/codec';
import { seedCatalog } from './activations';
import { createTestDatabase, type TestDatabase } from './db';
import { eventually } from './app';
import { freePort, type compiledProcesses } from './processes';
import { createLocalEnv, REPO_ROOT, uniqueTaskQueue } from './temporal';

export const DIST = path.join(REPO_ROOT, 'dist');

export interface StackFixture {
  /** The running dev server's environment (a new one after startTemporal). */
  env: TestWorkflowEnvironment;
  db: TestDatabase;
  databaseUrl: string;
  messagesFile: string;
  /** The environment of the API and worker processes. */
  common: NodeJS.ProcessEnv;
  /** Stops the dev server (its client goes with it); the API and worker keep running. */
  stopTemporal(): Promise<void>;
  /** Starts the dev server again on the same port and file: what it held is still there. */
  startTemporal(): Promise<void>;
  close(): Promise<void>;
}

export async function openStackFixture(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StackFixture> {
  if (!existsSync(path.join(DIST, 'src/main.js'))) throw new Error('dist/ is missing: run `npm test` (it compiles first)');
  const payloadKeys = `e2e:${randomBytes(32).toString('base64')}`;
  const tmp = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const temporalPort = await freePort();
  const startEnv = () =>
    createLocalEnv({
      server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES), port: temporalPort, dbFilename: path.join(tmp, 'temporal.db') },
      client: { dataConverter: dataConverterFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: payloadKeys }) },
    });
  const [env, db] = await Promise.all([startEnv(), createTestDatabase(5)]);
  await seedCatalog(db);
  const messagesFile = path.join(tmp, 'messages.jsonl');
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${db.name}`;
  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.toString(),
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue(name),
    MESSAGES_FILE: messagesFile,
    MOCK_IDENTITY_DELAY_MS: '300',
    IDENTITY_POLL_INTERVAL_SECONDS: '1',
    TEMPORAL_PAYLOAD_KEYS: payloadKeys,
    // Each process's metrics listener would take the same default port: a test that reads them gives each its own.
    METRICS_ENABLED: 'false',
    ...extraEnv,
  };
  const fixture: StackFixture = {
    env,
    db,
    databaseUrl: url.toString(),
    messagesFile,
    common,
    async stopTemporal() {
      await fixture.env.teardown();
    },
    async startTemporal() {
      fixture.env = await startEnv();
    },
    async close() {
      await fixture.env.teardown().catch(() => undefined);
      await db.drop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Starts the compiled API on the stack and waits until it is ready (Postgres and Temporal answer); returns its base URL. */
export async function startApi(stack: StackFixture, processes: ReturnType<typeof compiledProcesses>): Promise<string> {
  return (await startApiProcess(stack, processes)).baseUrl;
}

/** The same, with the process (to kill it) and on a given port (a restart where the clients are). */
export async function startApiProcess(
  stack: StackFixture,
  processes: ReturnType<typeof compiledProcesses>,
  port?: number,
): Promise<{ baseUrl: string; api: ChildProcess }> {
  const listen = port ?? (await freePort());
  const api = processes.start('src/main.js', { ...stack.common, PORT: String(listen), HOST: '127.0.0.1' }, 'api');
  const baseUrl = `http://127.0.0.1:${listen}`;
  await eventually(async () => expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200), 30_000);
  return { baseUrl, api };
}
