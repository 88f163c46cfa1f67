/**
 * Payment → `activated` latency (part of the webhook phase of `npm run bench`, bench/webhook-burst.ts).
 *
 * 100 activations whose identity verification completed first (verify-identity update,
 * mock identity provider deciding at once, the workflow's poll every second), each with
 * a card-processor payment in `processing`. Then, one activation at a time (no queueing),
 * the processor's signed `payment_intent.succeeded` is sent to POST
 * /webhooks/card-processor and the clock runs until the activation row reads
 * `activated`: acknowledgement, inbox, relay (woken by NOTIFY), settlement workflow,
 * settlement activity, "order paid" signal, the activation workflow's handoff to the mock
 * operator (MOCK_OPERATOR_DELAY_MS 0), all on the dev server the burst uses. The rows
 * are read every POLL_MS, so each figure is late by at most that much. Then where the time went,
 * step by step, from the inbox rows and the runs' histories (webhook-burst/breakdown.ts).
 *
 * Budget: p50 under 500 ms.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { sleep } from '../lib/processes';
import { fmt, latencyStats, type LatencyStats } from '../lib/stats';
import { latencyBreakdown, printBreakdown, type Step } from './breakdown';
import {
  activationRuns,
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
export const LATENCY_BUDGET_P50_MS = 500;
const POLL_MS = 5;
const IDENTITY_TIMEOUT_MS = 60_000;
const ACTIVATION_TIMEOUT_MS = 15_000;

export interface LatencyReport {
  activations: number;
  /** Sending the succeeded event → the activation row reads `activated` (milliseconds). */
  paymentToActivated: LatencyStats;
  /** The parts: until the webhook was acknowledged, and until the payment row read `completed`. */
  acknowledged: LatencyStats;
  paymentCompleted: LatencyStats;
  /** Where the time goes, step by step (webhook-burst/breakdown.ts). */
  steps: Step[];
  /** Activations that did not get there (and why). */
  failures: string[];
  identitySeconds: number;
  budget: { p50LimitMs: number; verdict: 'PASS' | 'FAIL' };
}

export interface LatencyDeps {
  pool: Pool;
  client: Client;
  http: ReturnType<typeof httpClient>;
  secret: string;
  /** Keeps these fixtures' ICCIDs apart from the other phases'. */
  fixtureSet: number;
}

export async function measureActivationLatency(deps: LatencyDeps): Promise<LatencyReport> {
  const fixtures = await insertFixtures(deps.pool, LATENCY_ACTIVATIONS, deps.fixtureSet);
  await startActivations(deps.client, fixtures);
  const t = performance.now();
  await completeIdentities(deps, fixtures);
  const identitySeconds = (performance.now() - t) / 1000;

  const samples = { activated: [] as number[], acknowledged: [] as number[], completed: [] as number[] };
  const failures: string[] = [];
  for (const [i, p] of fixtures.entries()) {
    const r = await payAndWait(deps, p, i);
    if (typeof r === 'string') {
      failures.push(`${p.activationId}: ${r}`);
      continue;
    }
    samples.activated.push(r.activated);
    samples.acknowledged.push(r.acknowledged);
    samples.completed.push(r.completed);
  }
  const paymentToActivated = latencyStats(samples.activated);
  const pass = failures.length === 0 && paymentToActivated.p50 < LATENCY_BUDGET_P50_MS;
  return {
    activations: fixtures.length,
    paymentToActivated,
    acknowledged: latencyStats(samples.acknowledged),
    paymentCompleted: latencyStats(samples.completed),
    steps: await latencyBreakdown(deps.pool, deps.client, fixtures),
    failures,
    identitySeconds,
    budget: { p50LimitMs: LATENCY_BUDGET_P50_MS, verdict: pass ? 'PASS' : 'FAIL' },
  };
}

/** Verify-identity on every activation (ids ending in 0: the mock completes them), then wait for the rows to read completed. */
async function completeIdentities(deps: LatencyDeps, fixtures: PaymentFixture[]): Promise<void> {
  const runs = activationRuns(deps.client);
  await forEachConcurrently(fixtures, 10, (p, i) =>
    runs.verifyIdentity(p.activationId, { identityType: 'citizen', idNumber: `1${String(i).padStart(8, '0')}0` }),
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
    `\npayment -> activated, ${r.activations} activations one at a time, identity completed first ` +
      `(${fmt(r.identitySeconds, 1)} s for all), rows read every ${POLL_MS} ms:`,
  );
  console.log(line('webhook acknowledged', r.acknowledged));
  console.log(line('payment completed', r.paymentCompleted));
  console.log(line('activation activated', r.paymentToActivated));
  printBreakdown(r.steps);
  for (const f of r.failures.slice(0, 5)) console.log(`    FAILED ${f}`);
  const verdict = r.budget.verdict === 'PASS' ? 'PASS' : '*** FAIL ***';
  console.log(
    `  ${verdict}  payment -> activated p50 ${fmt(r.paymentToActivated.p50, 1)} ms (< ${r.budget.p50LimitMs} ms), ` +
      `${r.activations - r.failures.length}/${r.activations} activated`,
  );
}
