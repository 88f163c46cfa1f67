/**
 * Payment → `activated` latency (part of the webhook phase of `npm run bench`, bench/webhook-burst.ts).
 *
 * Two series of 100 activations whose identity verification completed first (verify-identity
 * update, mock identity provider deciding at once, the workflow's poll every second), each with a
 * card-processor payment in `processing`. Then, one activation at a time, the processor's signed
 * `payment_intent.succeeded` is sent to POST /webhooks/card-processor and the clock runs until the
 * activation row reads `activated`: acknowledgement, inbox, relay (woken by NOTIFY), settlement
 * workflow (settling in its workflow task), "order paid" signal, the activation workflow's gate
 * and its handoff to the mock operator (MOCK_OPERATOR_DELAY_MS 0), all on the dev server the burst
 * uses. The rows are read every POLL_MS, so each figure is late by at most that much. The first
 * series pauses LATENCY_PAUSE_MS before each payment, so no payment queues behind the work its
 * predecessors left on the dev server (see there); the second sends them back to back. Then where
 * the time went, step by step, from the inbox rows and the runs' histories (webhook-burst/breakdown.ts).
 *
 * Budget: p50 under 100 ms, of the paced series.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { sleep } from '../lib/processes';
import { fmt, latencyStats, type LatencyStats } from '../lib/stats';
import { latencyBreakdown, printBreakdown, type Step } from './breakdown';
import { executeUpdate } from '../../src/temporal/update';
import { activationWorkflowId, verifyIdentityUpdate } from '../../workflows/contracts/activation-contract';
import {
  forEachConcurrently,
  insertFixtures,
  sign,
  startActivations,
  succeededEvent,
  WEBHOOK_PATH,
  type httpClient,
  type PaymentFixture,
} from './fixtures';

export const LATENCY_ACTIVATIONS = 100;
export const LATENCY_BUDGET_P50_MS = 100;
/**
 * The pause before each payment of the budget's series. The dev server keeps every run on its one
 * history shard, whose task reader loads at most 20 times a second (the server's
 * history.transferProcessorMaxPollRPS): each hand-over between runs, workers and task queues waits for
 * one load, and one payment's runs need about 9 (4 on its path, the rest as its runs close). Sent back
 * to back, payments wait on that cap, 50 ms per hand-over, not on their own path; 500 ms apart they
 * stay under it, as a payment does on a production cluster, which spreads runs over its many shards.
 */
export const LATENCY_PAUSE_MS = 500;
const POLL_MS = 5;
const IDENTITY_TIMEOUT_MS = 60_000;
const ACTIVATION_TIMEOUT_MS = 15_000;

/** One series of payments, one at a time. */
export interface LatencySeries {
  /** Before each payment. */
  pauseMs: number;
  /** Sending the succeeded event → the activation row reads `activated` (milliseconds). */
  paymentToActivated: LatencyStats;
  /** The parts: until the webhook was acknowledged, and until the payment row read `completed`. */
  acknowledged: LatencyStats;
  paymentCompleted: LatencyStats;
  /** Where the time goes, step by step (webhook-burst/breakdown.ts). */
  steps: Step[];
  /** Activations that did not get there (and why). */
  failures: string[];
}

export interface LatencyReport {
  /** Per series. */
  activations: number;
  /** The budget's series: LATENCY_PAUSE_MS before each payment. */
  paced: LatencySeries;
  /** The same back to back (no budget): what the dev server's one-shard cap adds. */
  backToBack: LatencySeries;
  identitySeconds: number;
  budget: { p50LimitMs: number; verdict: 'PASS' | 'FAIL' };
}

export interface LatencyDeps {
  pool: Pool;
  client: Client;
  http: ReturnType<typeof httpClient>;
  secret: string;
  /** Keep each series' ICCIDs apart from the other phases'. */
  fixtureSets: { paced: number; backToBack: number };
}

export async function measureActivationLatency(deps: LatencyDeps): Promise<LatencyReport> {
  const paced = await insertFixtures(deps.pool, LATENCY_ACTIVATIONS, deps.fixtureSets.paced);
  const backToBack = await insertFixtures(deps.pool, LATENCY_ACTIVATIONS, deps.fixtureSets.backToBack);
  await startActivations(deps.client, [...paced, ...backToBack]);
  const t = performance.now();
  await completeIdentities(deps, [...paced, ...backToBack]);
  const identitySeconds = (performance.now() - t) / 1000;

  const series = { paced: await paySeries(deps, paced, LATENCY_PAUSE_MS), backToBack: await paySeries(deps, backToBack, 0) };
  const pass = series.paced.failures.length === 0 && series.paced.paymentToActivated.p50 < LATENCY_BUDGET_P50_MS;
  return {
    activations: LATENCY_ACTIVATIONS,
    ...series,
    identitySeconds,
    budget: { p50LimitMs: LATENCY_BUDGET_P50_MS, verdict: pass ? 'PASS' : 'FAIL' },
  };
}

/** Pays each fixture in turn, `pauseMs` after the previous one was activated, then reads where the time went. */
async function paySeries(deps: LatencyDeps, fixtures: PaymentFixture[], pauseMs: number): Promise<LatencySeries> {
  const samples = { activated: [] as number[], acknowledged: [] as number[], completed: [] as number[] };
  const failures: string[] = [];
  for (const [i, p] of fixtures.entries()) {
    await sleep(pauseMs);
    const r = await payAndWait(deps, p, i);
    if (typeof r === 'string') {
      failures.push(`${p.activationId}: ${r}`);
      continue;
    }
    samples.activated.push(r.activated);
    samples.acknowledged.push(r.acknowledged);
    samples.completed.push(r.completed);
  }
  return {
    pauseMs,
    paymentToActivated: latencyStats(samples.activated),
    acknowledged: latencyStats(samples.acknowledged),
    paymentCompleted: latencyStats(samples.completed),
    steps: await latencyBreakdown(deps.pool, deps.client, fixtures),
    failures,
  };
}

/** Verify-identity on every activation (ids ending in 0: the mock completes them), then wait for the rows to read completed. */
async function completeIdentities(deps: LatencyDeps, fixtures: PaymentFixture[]): Promise<void> {
  // Set-up, not measured: the workflow's own update starts them (the API's path needs its process).
  await forEachConcurrently(fixtures, 10, (p, i) =>
    executeUpdate(deps.client.workflow.getHandle(activationWorkflowId(p.activationId)), verifyIdentityUpdate, {
      args: [{ identityType: 'citizen', idNumber: `1${String(i).padStart(8, '0')}0` }],
    }),
  );
  const deadline = performance.now() + IDENTITY_TIMEOUT_MS;
  for (;;) {
    const { rows } = await deps.pool.query<{ n: string }>(
      `select count(*) as n from activations where id = any($1::uuid[]) and identity_status = 'completed' and status = 'pending'`,
      [fixtures.map((p) => p.activationId)],
    );
    if (Number(rows[0].n) === fixtures.length) return;
    if (performance.now() > deadline) throw new Error(`only ${rows[0].n} of ${fixtures.length} identities completed`);
    await sleep(200);
  }
}

/** One payment: sends the signed event, then reads the rows until the activation is `activated`. */
async function payAndWait(
  deps: LatencyDeps,
  p: PaymentFixture,
  i: number,
): Promise<{ acknowledged: number; completed: number; activated: number } | string> {
  const body = JSON.stringify(succeededEvent(p, `evt_latency_${i}_${randomBytes(4).toString('hex')}`));
  const header = sign(body, deps.secret);
  const start = performance.now();
  const answer = await deps.http.send('POST', WEBHOOK_PATH, body, { 'Processor-Signature': header });
  const acknowledged = performance.now() - start;
  if (answer.status !== 200) return `webhook answered ${answer.status} ${answer.body.slice(0, 200)}`;
  let completed: number | undefined;
  for (;;) {
    const { rows } = await deps.pool.query<{ activation: string; payment: string }>(
      `select a.status as activation, p.status as payment from activations a join payments p on p.order_id = a.order_id
        where a.id = $1 and p.id = $2`,
      [p.activationId, p.paymentId],
    );
    const now = performance.now() - start;
    if (completed === undefined && rows[0]?.payment === 'completed') completed = now;
    if (rows[0]?.activation === 'activated') return { acknowledged, completed: completed ?? now, activated: now };
    if (rows[0]?.activation === 'failed' || rows[0]?.activation === 'cancelled') return `ended ${rows[0].activation}`;
    if (now > ACTIVATION_TIMEOUT_MS) return `not activated within ${ACTIVATION_TIMEOUT_MS / 1000} s (${JSON.stringify(rows[0])})`;
    await sleep(POLL_MS);
  }
}

export function printLatency(r: LatencyReport): void {
  const line = (name: string, s: LatencyStats) =>
    `    ${name.padEnd(34)} p50 ${fmt(s.p50, 1).padStart(6)} ms  p90 ${fmt(s.p90, 1).padStart(6)} ms  ` +
    `p99 ${fmt(s.p99, 1).padStart(6)} ms  max ${fmt(s.max, 1).padStart(6)} ms`;
  console.log(
    `\npayment -> activated, ${r.activations} activations one at a time in each series, identity completed first ` +
      `(${fmt(r.identitySeconds, 1)} s for all), rows read every ${POLL_MS} ms`,
  );
  const series = (title: string, s: LatencySeries) => {
    console.log(`  ${title}:`);
    console.log(line('webhook acknowledged', s.acknowledged));
    console.log(line('payment completed', s.paymentCompleted));
    console.log(line('activation activated', s.paymentToActivated));
    printBreakdown(s.steps);
    for (const f of s.failures.slice(0, 5)) console.log(`    FAILED ${f}`);
  };
  series(`${fmt(r.paced.pauseMs, 0)} ms apart (the budget's)`, r.paced);
  series(`back to back (no budget: each hand-over waits on the dev server's one-shard cap of 20 task loads/s)`, r.backToBack);
  const verdict = r.budget.verdict === 'PASS' ? 'PASS' : '*** FAIL ***';
  console.log(
    `  ${verdict}  payment -> activated p50 ${fmt(r.paced.paymentToActivated.p50, 1)} ms (< ${r.budget.p50LimitMs} ms), ` +
      `${r.activations - r.paced.failures.length}/${r.activations} activated; back to back p50 ` +
      `${fmt(r.backToBack.paymentToActivated.p50, 1)} ms, ${r.activations - r.backToBack.failures.length}/${r.activations} activated`,
  );
}
