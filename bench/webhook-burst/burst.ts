/**
 * The burst driver of the webhook phase (bench/webhook-burst.ts has the details): after a warm-up,
 * GET /healthz, the burst of signed deliveries, and once settled GET /healthz again, 1,000 requests
 * each at the same concurrency by the same client; then the burst again with Temporal stopped.
 * Each batch records the CPU time of every process of the stack.
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Pool } from 'pg';
import { paymentWorkflowId } from '../../workflows/contracts/settlement-contract';
import type { PhaseContext } from '../lib/phase';
import { clockTicks, procStat } from '../lib/proc';
import { seconds, sleep, type Cleanups } from '../lib/processes';
import { fmt, latencyStats } from '../lib/stats';
import { verify, waitForSettlement } from './checks';
import { restartDevServer, stopDevServer, type DevServer } from './dev-server';
import {
  acknowledged,
  ACK_BUDGET_RATIO,
  DELIVERIES,
  FIXTURE_SET,
  HEALTHZ_PATH,
  httpClient,
  insertFixtures,
  OUTAGE_SECONDS,
  PAYMENTS,
  planDeliveries,
  sign,
  startActivations,
  succeededEvent,
  WEBHOOK_PATH,
  type Answer,
  type Delivery,
  type PaymentFixture,
} from './fixtures';
import type { Batch, Check, CpuMs, Measured } from './measures';
import { printBatches, type OutageReport } from './report';

export interface Stack {
  temporal: DevServer;
  worker: ChildProcess;
  api: { proc: ChildProcess; port: number };
  secret: string;
  db: { pool: Pool };
  payments: PaymentFixture[];
  /** Seconds per step. */
  setup: Record<string, number>;
}

/** Warm-up, GET /healthz, the burst, settlement, GET /healthz again; prints the table. */
export async function measure(local: Cleanups, ctx: PhaseContext, stack: Stack): Promise<Measured> {
  const t = performance.now();
  const deliveries = planDeliveries(stack.payments, stack.secret, ctx.opts.connections);
  const http = httpClient(stack.api.port, ctx.opts.connections);
  // The executor turns a throw into a rejection, which the clean-up list reports and moves past.
  local.add('HTTP agent', () => new Promise<void>((resolve) => resolve(http.close())));
  const meters = cpuMeters(
    { api: stack.api.proc.pid, worker: stack.worker.pid, temporal: stack.temporal.current.proc.pid },
    ctx.postgresCpu,
  );
  await warmUp(http, stack.secret, ctx.opts.connections, ctx.opts.warmupSeconds);
  const healthz = (when: string) =>
    runBatch(
      `GET ${HEALTHZ_PATH} (${when})`,
      Array.from({ length: DELIVERIES }, () => null),
      ctx.opts.connections,
      meters,
      () => http.send('GET', HEALTHZ_PATH),
      (r) => r.status === 200,
      () => `GET ${HEALTHZ_PATH}`,
    );
  const before = await healthz('before');
  const ack = await deliverAll(`POST ${WEBHOOK_PATH}`, deliveries, ctx.opts.connections, meters, http);
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

export function ackBudgetCheck(throughputRatio: number): Check {
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
export async function outageBurst(ctx: PhaseContext, stack: Stack, http: ReturnType<typeof httpClient>): Promise<OutageReport> {
  const payments = await insertFixtures(stack.db.pool, PAYMENTS, FIXTURE_SET.outage);
  await startActivations(stack.temporal.client, payments);
  const deliveries = planDeliveries(payments, stack.secret, ctx.opts.connections);
  console.log(`
Temporal stopped during the burst: ${PAYMENTS} more payments, ${fmt(deliveries.length, 0)} deliveries`);
  const down = performance.now();
  await stopDevServer(stack.temporal);
  const meters = cpuMeters({ api: stack.api.proc.pid, worker: stack.worker.pid }, ctx.postgresCpu);
  const ack = await deliverAll(`POST ${WEBHOOK_PATH} (Temporal stopped)`, deliveries, ctx.opts.connections, meters, http);
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
    const stat = pid ? procStat(pid) : undefined;
    return stat ? (stat.own / ticksPerSecond) * 1e6 : null; // utime + stime, all threads
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
