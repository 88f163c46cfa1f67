/**
 * eSIM store orders (a phase of `npm run bench`, `--only store-orders` / `--no-store-orders`):
 *
 * - Order creation: POST /store/orders, sequential requests on one keep-alive connection, timed inside
 *   the API (request event to the response's 'finish'). Each request runs every check of the contract,
 *   the live health check of the provider against the mock plugin included, writes the store order, its
 *   order row and its run's pending start in one transaction, and starts the run on the dev server.
 * - Paid → issued: orders of the synchronous mock SKU paid by card (the mock processor completes at
 *   once and the payment service signals the run), then the run places the order, stores the profile and
 *   queues the QR e-mail. Measured on the database's own timestamps: the store order's issuedAt minus
 *   the payment's paidAt (both written by the servers), one order at a time. An order slower than
 *   SLOW_MS prints its timeline: who started its run and sent its paid signal, when, and its history's
 *   events, each in ms since paidAt.
 *
 * Budgets (issue 25): order creation server-side p50 ≤ 20 ms; paid → issued p50 < 500 ms (dev server,
 * synchronous mock).
 *
 * The stack: a Temporal dev server (webhook-burst/dev-server.ts), a worker child (this file forked with
 * `--worker`: the real workflows and activities, as worker/main.ts builds them) and the API in this
 * process (only its own requests are timed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';

const { EventType } = proto.api.enums.v1;
import pino from 'pino';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openPool } from '../src/db/database';
import { createDb, type Db } from '../src/db/sql';
import { createMemoryMessageSender } from '../src/providers/messages';
import { mockStoreProviders } from '../src/store/providers/mock';
import { MOCK_STORE_SKUS } from '../src/store/providers/mock-catalog';
import { seedStoreStandIns } from '../src/store/stand-ins';
import { dataConverterFromConfig } from '../src/temporal/codec';
import { temporalSignalSender } from '../src/workflow-signals/temporal';
import { createStoreOrderRuns } from '../src/store/runs-temporal';
import { discardLogger } from './lib/app';
import { ROOT } from './lib/paths';
import type { Phase, PhaseContext } from './lib/phase';
import { Cleanups, forkChild } from './lib/processes';
import { p50Budget, printBudgets, verdictOf, type Budget } from './lib/report';
import { signedInUser } from './lib/sign-up';
import { fmt, latencyStats, type LatencyStats } from './lib/stats';
import { requestTimer } from './lib/timing';
import { startDevServer } from './webhook-burst/dev-server';
import { storeOrderWorkflowId } from '../workflows/contracts/store-order-contract';

const TASK_QUEUE = 'bench-store-orders';
const ORDERS = 200;
const WARMUP = 20;
const ISSUED = 30;
const BUDGET = { createP50Ms: 20, paidToIssuedP50Ms: 500 };
const SKU = 'MOCK-SYNC-SA-5GB';
/** An order slower than this from paid to issued has its timeline printed: who started its run and sent its signal, when. */
const SLOW_MS = 1_000;
const productIdOf = (sku: string) => MOCK_STORE_SKUS.find((s) => s.sku === sku)!.id;

export interface StoreOrdersReport {
  orders: number;
  create: { server: LatencyStats; client: LatencyStats };
  paidToIssued: LatencyStats;
  paidToIssuedClient: LatencyStats;
  budgets: Budget[];
  verdict: 'PASS' | 'FAIL';
}

export const storeOrdersPhase: Phase<StoreOrdersReport> = {
  name: 'store-orders',
  plan: () => `POST /store/orders (${ORDERS}) and paid → issued (${ISSUED}) on the dev server`,
  run: (ctx) => benchStoreOrders(ctx),
  verdict: (report) => report.verdict,
};

function config(databaseUrl: string, temporalAddress: string) {
  return loadConfig({
    NODE_ENV: 'test',
    CONTRACT_CHECKS: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    FEATURE_ESIM_STORE: 'true',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    TEMPORAL_SEARCH_ATTRIBUTES: 'false',
    MESSAGES_FILE: '/dev/null',
  });
}

async function benchStoreOrders(ctx: PhaseContext): Promise<StoreOrdersReport> {
  console.log(`\nbench: eSIM store orders: POST /store/orders and paid → issued (dev server, synchronous mock)`);
  const local = new Cleanups();
  ctx.onCleanup('store-orders stack', () => local.run());
  try {
    const temporal = await startDevServer(local);
    await forkChild('the store worker', __filename, ['--worker'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: ctx.databaseUrl, BENCH_TEMPORAL_ADDRESS: temporal.address },
      onCleanup: (name, fn) => local.add(name, fn),
      killOnExit: true,
    });
    const cfg = config(ctx.databaseUrl, temporal.address);
    const pool = openPool(ctx.databaseUrl, cfg.DATABASE_POOL_MAX);
    local.add('store-orders pool', () => pool.end());
    const db = createDb(pool);
    await db.transaction((tx) => seedStoreStandIns(tx));
    const sent = createMemoryMessageSender();
    const app = createApp({
      config: cfg,
      db,
      messages: sent,
      logger: discardLogger(cfg),
      temporalReady: () => Promise.resolve(),
      storeProviders: mockStoreProviders(),
      storeOrderRuns: createStoreOrderRuns(temporal.client, cfg),
      signalSender: temporalSignalSender(temporal.client),
    });
    local.add('store-orders app', async () => (app.locals.stop as () => Promise<void>)());
    const timer = requestTimer(app, ['/store/orders'], 'POST');
    const server: Server = createServer(timer.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    local.add('store-orders server', () => new Promise<void>((resolve) => server.close(() => resolve())));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const user = await signedInUser(baseUrl, sent.messages, { phone: `+9665${String(Date.now()).slice(-8)}`, name: 'Store Bench' });
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${user.token}`, 'X-Client-Type': 'mobile' };
    const post = async (path: string, body: unknown) => {
      const start = performance.now();
      const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status} ${JSON.stringify(json)}`);
      return { ms: performance.now() - start, json };
    };
    const ack = (await post('/store/device-acknowledgements', { deviceModel: 'Bench', esimCompatible: true, carrierUnlocked: true })).json
      .data as { id: string };
    const orderBody = { productId: productIdOf(SKU), deviceAcknowledgementId: ack.id, currency: 'SAR' };
    const newOrder = async () => {
      const { ms, json } = await post('/store/orders', orderBody);
      return { ms, id: (json.data as { id: string }).id };
    };

    for (let i = 0; i < WARMUP; i++) await newOrder();
    timer.take();
    const client: number[] = [];
    for (let i = 0; i < ORDERS; i++) client.push((await newOrder()).ms);
    const samples = timer.take()['/store/orders'];
    if (samples?.ms.length !== ORDERS || samples.non2xx) throw new Error(`server-side timing of POST /store/orders: ${samples?.ms.length}`);
    const create = { server: latencyStats(samples.ms), client: latencyStats(client) };
    console.log(
      `  POST /store/orders: server-side p50 ${fmt(create.server.p50, 2)} ms, p99 ${fmt(create.server.p99, 2)} ms ` +
        `(client p50 ${fmt(create.client.p50, 2)} ms), ${ORDERS} sequential orders`,
    );

    const paidToIssued: number[] = [];
    const clientIssued: number[] = [];
    for (let i = 0; i < ISSUED; i++) {
      const { id } = await newOrder();
      const start = performance.now();
      const paid = await post('/payments/create-intent', { orderId: id, method: 'card_scheme_1', idempotencyKey: `bench-${randomUUID()}` });
      if ((paid.json as { status: string }).status !== 'completed') throw new Error(`payment ${JSON.stringify(paid.json)}`);
      await waitIssued(pool, id);
      clientIssued.push(performance.now() - start);
      paidToIssued.push(await issuedAfterPaidMs(pool, id));
      if (paidToIssued.at(-1)! > SLOW_MS)
        console.log(`  slow: ${await timeline(pool, id)}\n    run: ${await runEvents(temporal.client, pool, id)}`);
    }
    const report: Omit<StoreOrdersReport, 'budgets' | 'verdict'> = {
      orders: ORDERS,
      create,
      paidToIssued: latencyStats(paidToIssued),
      paidToIssuedClient: latencyStats(clientIssued),
    };
    console.log(
      `  paid → issued (payment's paidAt to the order's issuedAt): p50 ${fmt(report.paidToIssued.p50, 1)} ms, ` +
        `p99 ${fmt(report.paidToIssued.p99, 1)} ms; seen by the client (payment call to issued row) p50 ${fmt(report.paidToIssuedClient.p50, 1)} ms`,
    );
    const budgets = [
      p50Budget('POST /store/orders: server-side p50 (live health check included)', create.server.p50, BUDGET.createP50Ms),
      p50Budget('paid → issued p50 (dev server, synchronous mock)', report.paidToIssued.p50, BUDGET.paidToIssuedP50Ms),
    ];
    printBudgets(budgets);
    return { ...report, budgets, verdict: verdictOf(budgets) };
  } finally {
    await local.run();
  }
}

async function waitIssued(pool: Pool, id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await pool.query<{ status: string }>('select status from store_orders where id = $1', [id]);
    if (rows[0]?.status === 'issued') return;
    if (rows[0]?.status === 'failed' || Date.now() > deadline) throw new Error(`store order ${id} is ${rows[0]?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function issuedAfterPaidMs(pool: Pool, id: string): Promise<number> {
  const { rows } = await pool.query<{ ms: number }>(
    `select (extract(epoch from s.issued_at - p.paid_at) * 1000)::float8 as ms
       from store_orders s join payments p on p.id = s.payment_id where s.id = $1`,
    [id],
  );
  return rows[0].ms;
}

/** The run's history as `event type +ms` since the payment's paidAt (the slow orders' second line). */
async function runEvents(client: Client, pool: Pool, id: string): Promise<string> {
  const { rows } = await pool.query<{ paid: Date }>(
    'select p.paid_at as paid from store_orders s join payments p on p.id = s.payment_id where s.id = $1',
    [id],
  );
  const { events } = await client.workflow.getHandle(storeOrderWorkflowId(id)).fetchHistory();
  return (events ?? [])
    .map((e) => {
      const at = Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6) - rows[0].paid.getTime();
      return `${EventType[e.eventType!].replace('EVENT_TYPE_', '').toLowerCase()} ${at}`;
    })
    .join(', ');
}

/** Milliseconds from the payment's paidAt to each step of one order: its run's start and its signals (the API's or the relay's), issued. */
async function timeline(pool: Pool, id: string): Promise<string> {
  const since = (column: string) => `(extract(epoch from ${column} - p.paid_at) * 1000)::int`;
  const { rows } = await pool.query<Record<string, unknown>>(
    `select ${since('w.created_at')} as "start written", ${since('w.started_at')} as "run started", w.attempts as "start attempts",
            g.signal, ${since('g.created_at')} as "signal written", ${since('g.delivered_at')} as "signal delivered",
            g.attempts as "signal attempts", g.last_error as "signal error", ${since('s.issued_at')} as issued
       from store_orders s join payments p on p.id = s.payment_id
       left join workflow_starts w on w.workflow_id = $2
       left join workflow_signals g on g.workflow_id = $2
      where s.id = $1`,
    [id, storeOrderWorkflowId(id)],
  );
  return JSON.stringify(rows);
}

// ---------------------------------------------------------------------------
// The worker child
// ---------------------------------------------------------------------------

async function workerChild(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  const { buildActivityDeps, startWorker } = await import('../worker/main.js');
  const { startSignalRelay } = await import('../src/workflow-signals/relay.js');
  const { startStartRelay } = await import('../worker/start-relay.js');
  let database: { db: Db; pool: Pool } | undefined;
  let running: Awaited<ReturnType<typeof startWorker>> | undefined;
  const relays: Array<{ stop(): Promise<void> }> = [];
  const stop = async (code = 0) => {
    setTimeout(() => process.exit(code), 5_000);
    await Promise.all(relays.map((relay) => relay.stop().catch(() => undefined)));
    await running?.shutdown().catch(() => undefined);
    await database?.pool.end().catch(() => undefined);
    process.exit(code);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (msg) => msg === 'stop' && void stop());
  process.on('SIGTERM', () => void stop());
  try {
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
    const cfg = config(process.env.BENCH_DATABASE_URL!, process.env.BENCH_TEMPORAL_ADDRESS!);
    const pool = openPool(cfg.DATABASE_URL!, cfg.DATABASE_POOL_MAX);
    database = { db: createDb(pool), pool };
    running = await startWorker({
      activityDeps: buildActivityDeps(cfg, database),
      dataConverter: dataConverterFromConfig(cfg),
      address: cfg.TEMPORAL_ADDRESS,
      taskQueue: cfg.TEMPORAL_TASK_QUEUE,
      connectTimeoutMs: 30_000,
      logger: pino({ name: 'bench-store-worker', level: 'warn' }),
    });
    // As the worker process runs them: a payment made right after its order's create finds the order's
    // start still pending, so its "paid" signal waits for the signal relay (src/workflow-signals/outbox.ts).
    const relayLogger = pino({ name: 'bench-store-relays', level: 'warn' });
    relays.push(
      startStartRelay(cfg, { db: database.db, logger: relayLogger }),
      startSignalRelay(cfg, { db: database.db, logger: relayLogger }),
    );
    process.send?.({ type: 'ready' });
    await running.done;
  } catch (err) {
    process.send?.({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await stop(1);
  }
}

if (require.main === module && process.argv[2] === '--worker') void workerChild();
