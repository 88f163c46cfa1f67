/**
 * Where payment → `activated` goes (webhook-burst/activation-latency.ts): per activation, the
 * moments its path left behind, from the inbox row (received by the API, claimed by the relay) and
 * from the histories of its settlement run and its activation run (the event times of the dev
 * server); then, step by step, the median time from one moment to the next. All clocks are this
 * machine's (API, PostgreSQL, Temporal), so the steps add up to about the end-to-end figure.
 */
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { paymentWorkflowId } from '../../workflows/contracts/settlement-contract';
import { printTable } from '../lib/report';
import { fmt, median } from '../lib/stats';
import { forEachConcurrently, type PaymentFixture } from './fixtures';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
/** An event id as the history carries it (a Long). */
type EventId = HistoryEvent['eventId'];

/** One step: from the moment before it to `moment`, the median over the activations that have both. */
export interface Step {
  moment: string;
  p50Ms: number;
  /** Median from the webhook's receipt to this moment. */
  sinceReceivedMs: number;
}

/** The moments of one activation's path, in order (absent: not found in its histories). */
async function momentsOf(pool: Pool, client: Client, p: PaymentFixture): Promise<Map<string, number>> {
  const moments = new Map<string, number>();
  const { rows } = await pool.query<{ received: Date; handled: Date }>(
    `select received_at as received, handled_at as handled from webhook_inbox where payment_id = $1 order by id limit 1`,
    [p.paymentId],
  );
  if (rows[0]) {
    moments.set('webhook received (inbox row written)', rows[0].received.getTime());
    moments.set('relay claimed the row', rows[0].handled.getTime());
  }
  const history = async (workflowId: string) => (await client.workflow.getHandle(workflowId).fetchHistory()).events;
  const settlement = runMoments(moments, 'settlement', await history(paymentWorkflowId(p.paymentId)));
  const activation = runMoments(moments, 'activation', await history(activationWorkflowId(p.activationId)));
  settlement.signal('processorEvent');
  settlement.activity('settlePayment');
  settlement.signalSent('orderPaid');
  activation.signal('orderPaid');
  activation.activity('startHandoff');
  activation.activity('activateSim');
  return moments;
}

const timeOf = (e: HistoryEvent) => tsToMs(e.eventTime);

/** The activity a local activity marker records (the SDK core's marker data, plain JSON). */
function localActivityOf(e: HistoryEvent): string | undefined {
  const marker = e.markerRecordedEventAttributes;
  const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
  return data ? (JSON.parse(Buffer.from(data).toString()) as { activity_type: string }).activity_type : undefined;
}

/** Adds the moments of one run's history, named `<run>: …`; a workflow task is added once. */
function runMoments(moments: Map<string, number>, run: string, history: HistoryEvent[] | null | undefined) {
  const events = history ?? [];
  const byId = (id: EventId) => events.find((e) => Number(e.eventId) === Number(id));
  const tasks = new Set<number>();

  /** The workflow task that decided a command: scheduled, picked up, completed (the command sent). */
  function task(what: string, command: { workflowTaskCompletedEventId?: EventId }) {
    const completed = byId(command.workflowTaskCompletedEventId);
    const started = byId(completed?.workflowTaskCompletedEventAttributes?.startedEventId);
    const scheduled = byId(started?.workflowTaskStartedEventAttributes?.scheduledEventId);
    if (!completed || !started || !scheduled || tasks.has(Number(completed.eventId))) return;
    tasks.add(Number(completed.eventId));
    moments.set(`${run}: workflow task for ${what} scheduled`, timeOf(scheduled));
    moments.set(`${run}: workflow task for ${what} picked up`, timeOf(started));
    moments.set(`${run}: workflow task for ${what} completed`, timeOf(completed));
  }

  return {
    signal(name: string) {
      const signalled = events.find((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);
      if (signalled) moments.set(`${run}: ${name} signalled`, timeOf(signalled));
    },
    signalSent(name: string) {
      const sent = events.find((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === name);
      if (sent) task(`sending ${name}`, sent.signalExternalWorkflowExecutionInitiatedEventAttributes!);
    },
    /** An activity task (scheduled by a workflow task, started, completed), or a local activity run inside a workflow task. */
    activity(name: string) {
      const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name);
      if (scheduled) {
        task(name, scheduled.activityTaskScheduledEventAttributes!);
        const id = Number(scheduled.eventId);
        const started = events.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === id);
        const completed = events.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === id);
        if (started) moments.set(`${run}: ${name} task started`, timeOf(started));
        if (completed) moments.set(`${run}: ${name} task completed`, timeOf(completed));
        return;
      }
      // A local activity's start and end are not in the history: it ran inside the task that recorded its marker.
      const marker = events.find((e) => localActivityOf(e) === name);
      if (marker) task(`${name} (local, run inside it)`, marker.markerRecordedEventAttributes!);
    },
  };
}

/** The medians, step by step, in path order (the order of the first activation that has every moment). */
export async function latencyBreakdown(pool: Pool, client: Client, fixtures: PaymentFixture[]): Promise<Step[]> {
  const all: Map<string, number>[] = [];
  await forEachConcurrently(fixtures, 10, async (p) => void all.push(await momentsOf(pool, client, p)));
  const names = [...all.reduce((a, b) => (b.size > a.size ? b : a), new Map<string, number>()).keys()];
  const first = names[0];
  return names.map((moment, i) => {
    const deltas = (from: string) => all.filter((m) => m.has(from) && m.has(moment)).map((m) => m.get(moment)! - m.get(from)!);
    return { moment, p50Ms: i === 0 ? 0 : median(deltas(names[i - 1])), sinceReceivedMs: median(deltas(first)) };
  });
}

export function printBreakdown(steps: Step[]): void {
  console.log('  where it goes (median per step; API, PostgreSQL and dev-server clocks):');
  const rows = [['moment', 'step ms', 'since received ms']];
  for (const s of steps) rows.push([`  ${s.moment}`, fmt(s.p50Ms, 1), fmt(s.sinceReceivedMs, 1)]);
  printTable(rows, (i) => i >= 1, false);
}
