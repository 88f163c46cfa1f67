/**
 * After a burst (webhook-burst/burst.ts): wait, bounded, for every payment to complete and every
 * settlement run to close, then check, PASS or FAIL each: every payment completed with a receipt and
 * its order paid; exactly one settlement run per payment (Temporal visibility, polled until stable:
 * it is eventually consistent), closed `completed`, named by the payment's one settlement receipt;
 * completed once (no write to the payment row after the completing one, receipt and paid_at
 * unchanged since first seen, no mismatch record); each activation got exactly one orderPaid signal
 * (its history) and reads paid (its query).
 */
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { activationWorkflowId, stateQuery } from '../../workflows/contracts/activation-contract';
import { paymentWorkflowId } from '../../workflows/contracts/settlement-contract';
import { sleep } from '../lib/processes';
import { fmt } from '../lib/stats';
import { DELIVERIES, forEachConcurrently, SETTLE_TIMEOUT_MS, type PaymentFixture } from './fixtures';
import type { Batch, Check, Run, Settled } from './measures';

interface PaymentState {
  id: string;
  status: string;
  receipt_number: string | null;
  paid_at: string | null;
  untouched: boolean;
  order_status: string;
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
export async function waitForSettlement(pool: Pool, client: Client, payments: PaymentFixture[], burstEnd: number): Promise<Settled> {
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

export interface Verification {
  checks: Check[];
  signalsToSettlement: number;
  settlementRuns: number;
}

/** Every check, PASS or FAIL; a check lists (some of) the payments or deliveries that fail it. */
export async function verify(pool: Pool, client: Client, payments: PaymentFixture[], ack: Batch, settled: Settled): Promise<Verification> {
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
