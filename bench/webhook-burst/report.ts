/** What the webhook phase (bench/webhook-burst.ts) reports: results.json's `webhooks`, and the lines it prints. */
import { printTable } from '../lib/report';
import { fmt } from '../lib/stats';
import type { LatencyReport } from './activation-latency';
import type { Verification } from './checks';
import { DELIVERIES, OUTAGE_SECONDS, SETTLE_TIMEOUT_MS } from './fixtures';
import type { Batch, Check, CpuMs, Measured } from './measures';

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

export function printBatches(batches: Batch[], throughputRatio: number, p99Ratio: number): void {
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
  console.log(`\n${fmt(DELIVERIES, 0)} requests each at ${batches[0].connections} connections, same API process, same client:`);
  printTable(rows, (i) => i >= 1);
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

export function printOutcome(m: Measured, v: Verification, checks: Check[]): void {
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

export function printOutage(r: OutageReport): void {
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
