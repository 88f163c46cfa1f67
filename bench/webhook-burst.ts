/**
 * Webhook burst (part of `npm run bench`; `--no-webhooks` skips it, `--only webhooks`
 * runs nothing else).
 *
 * What the issues asked: 1,000 signed `payment_intent.succeeded` deliveries to
 * POST /webhooks/card-processor, 10 per payment for 100 payments, are all
 * acknowledged, and each payment ends `completed` exactly once with one
 * settlement; the acknowledgement throughput (budget: at least 25% of GET /healthz)
 * and p99 are reported next to GET /healthz, measured the same way on the same API
 * process in the same run. Then payment → `activated` latency
 * (webhook-burst/activation-latency.ts), and the burst again with Temporal stopped.
 *
 * Processes (each its own, like the rest of the bench):
 *   - the Temporal CLI dev server (loopback, headless, our search attributes
 *     registered, its database in a SQLite file so it can be stopped and started
 *     again with its state), started here;
 *   - a worker with the real workflows and the real activities (worker/main.ts
 *     startWorker + buildActivityDeps) and the webhook relay (src/webhooks/relay.ts,
 *     as worker/main.ts starts it), a fork of this file with `--worker`;
 *   - the API under test, the `app+temporal` server kind of lib/servers.ts: the real app,
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
 *
 * This file runs the phase and the worker child; the parts are in webhook-burst/: fixtures.ts
 * (parameters, fixtures, signed deliveries, the HTTP client), dev-server.ts, burst.ts (the burst
 * driver), checks.ts (settlement and checks), report.ts, activation-latency.ts and breakdown.ts (where its time goes).
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import type { Pool } from 'pg';
import { loadConfig } from '../src/config';
import { dataConverterFromConfig } from '../src/temporal/codec';
import { openPool } from '../src/db/database';
import { createDb, type Db } from '../src/db/sql';
import { OUT_DIR, ROOT } from './lib/paths';
import type { Phase, PhaseContext } from './lib/phase';
import { Cleanups, forkChild, seconds, stopChild } from './lib/processes';
import { fmt } from './lib/stats';
import { measureActivationLatency, printLatency } from './webhook-burst/activation-latency';
import { ackBudgetCheck, measure, outageBurst, type Stack } from './webhook-burst/burst';
import { verify } from './webhook-burst/checks';
import { startDevServer } from './webhook-burst/dev-server';
import {
  DELIVERIES,
  DELIVERIES_PER_PAYMENT,
  EVENT_COPIES,
  FIXTURE_SET,
  HEALTHZ_PATH,
  insertFixtures,
  PAYMENTS,
  startActivations,
  TASK_QUEUE,
  WEBHOOK_PATH,
} from './webhook-burst/fixtures';
import { printOutage, printOutcome, type WebhookReport } from './webhook-burst/report';

export const webhooksPhase: Phase<WebhookReport> = {
  name: 'webhooks',
  plan: () => 'the webhook burst next to GET /healthz',
  run: (ctx) => webhookBurst(ctx),
  verdict: (report) => report.verdict,
};

async function webhookBurst(ctx: PhaseContext): Promise<WebhookReport> {
  const t0 = performance.now();
  console.log(
    `\nbench: webhook burst: ${fmt(DELIVERIES, 0)} signed payment_intent.succeeded deliveries to POST ${WEBHOOK_PATH} ` +
      `(${PAYMENTS} payments x ${DELIVERIES_PER_PAYMENT}: ${EVENT_COPIES.length} event ids delivered ${EVENT_COPIES.join(', ')} times), ` +
      `${ctx.opts.connections} connections, next to GET ${HEALTHZ_PATH}`,
  );
  const local = new Cleanups();
  ctx.onCleanup('webhook burst', () => local.run());
  try {
    const stack = await setUp(local, ctx);
    console.log(
      `  set-up ${fmt(seconds(t0), 1)} s: Temporal dev server ${fmt(stack.setup.temporal, 1)} s, ` +
        `worker ${fmt(stack.setup.worker, 1)} s (bundles the workflows), API ${fmt(stack.setup.api, 1)} s, ` +
        `fixtures ${fmt(stack.setup.fixtures, 1)} s, ${PAYMENTS} activation workflows started and answering ${fmt(stack.setup.activations, 1)} s`,
    );
    const m = await measure(local, ctx, stack);
    const verification = await verify(stack.db.pool, stack.temporal.client, stack.payments, m.ack, m.settled);
    const checks = [verification.checks[0], ackBudgetCheck(m.throughputRatio), ...verification.checks.slice(1)];
    const settleAndVerify = seconds(m.burstEnd);
    printOutcome(m, verification, checks);
    const latency = await measureActivationLatency({
      pool: stack.db.pool,
      client: stack.temporal.client,
      http: m.http,
      secret: stack.secret,
      fixtureSets: { paced: FIXTURE_SET.latencyPaced, backToBack: FIXTURE_SET.latencyBackToBack },
    });
    printLatency(latency);
    const outage = await outageBurst(ctx, stack, m.http);
    printOutage(outage);
    const pass = [...checks, ...outage.checks].every((c) => c.pass) && latency.budget.verdict === 'PASS';
    const report: WebhookReport = {
      route: `POST ${WEBHOOK_PATH}`,
      payments: PAYMENTS,
      deliveries: DELIVERIES,
      eventCopies: EVENT_COPIES,
      connections: ctx.opts.connections,
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

/** Dev server, worker, API (in that order: each needs the one before), fixtures and activation workflows. */
async function setUp(local: Cleanups, ctx: PhaseContext): Promise<Stack> {
  const setup: Record<string, number> = {};
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await fn();
    setup[step] = seconds(t);
    return result;
  };
  const temporal = await timed('temporal', () => startDevServer(local));
  const worker = await timed('worker', () => startWorkerChild(local, ctx.databaseUrl, temporal.address));
  // A fresh signing secret: only this bench's deliveries verify.
  const secret = `whsec_bench_${randomBytes(16).toString('hex')}`;
  const api = await timed('api', async () => {
    const child = await ctx.startServer('app+temporal', {
      BENCH_TEMPORAL_ADDRESS: temporal.address,
      BENCH_TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      BENCH_WEBHOOK_SECRET: secret,
    });
    local.add('API server', () => stopChild(child.proc));
    return child;
  });
  const db = await openDatabase(local, ctx.databaseUrl);
  const payments = await timed('fixtures', () => insertFixtures(db.pool, PAYMENTS, FIXTURE_SET.burst));
  await timed('activations', () => startActivations(temporal.client, payments));
  return { temporal, worker, api, secret, db, payments, setup };
}

function openDatabase(local: Cleanups, url: string): Promise<{ pool: Pool }> {
  const pool = openPool(url, 4);
  local.add('database connections', () => pool.end());
  return Promise.resolve({ pool });
}

type WorkerMessage = { type: 'ready' } | { type: 'failed'; error: string };

/** The worker child (this file with `--worker`); resolves once it polls the task queue. */
async function startWorkerChild(local: Cleanups, databaseUrl: string, address: string): Promise<ChildProcess> {
  const { proc } = await forkChild<Extract<WorkerMessage, { type: 'ready' }>>('the worker', __filename, ['--worker'], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_DATABASE_URL: databaseUrl,
      BENCH_TEMPORAL_ADDRESS: address,
      BENCH_TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      BENCH_MESSAGES_FILE: path.join(OUT_DIR, 'webhooks-messages.jsonl'),
    },
    onCleanup: (name, fn) => local.add(name, fn),
    killOnExit: true,
  });
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
  let database: { db: Db; pool: Pool } | undefined;
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    // A graceful shutdown waits for running tasks, which can retry for long once Temporal or PostgreSQL is gone.
    setTimeout(() => process.exit(code), 5_000);
    await running?.shutdown().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await database?.pool.end().catch(() => undefined);
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
    const pool = openPool(config.DATABASE_URL!, config.DATABASE_POOL_MAX);
    database = { db: createDb(pool), pool };
    const logger = pino({ name: 'bench-worker', level: 'warn' });
    running = await startWorker({
      activityDeps: buildActivityDeps(config, database),
      dataConverter: dataConverterFromConfig(config),
      address: config.TEMPORAL_ADDRESS,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      connectTimeoutMs: 30_000,
      logger,
    });
    // As worker/main.ts: the relay hands the API's inbox rows to the settlement workflows.
    relay = startInboxRelay(config, { db: database.db, logger });
    send({ type: 'ready' });
    await running.done;
  } catch (err) {
    send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await stop(1);
  }
}

// ---------------------------------------------------------------------------
// Entry (worker child)
// ---------------------------------------------------------------------------

if (require.main === module && process.argv[2] === '--worker') void workerChild();
