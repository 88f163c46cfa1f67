// Pending signals (table workflow_signals): written in the transaction that decided them, marked by
// the API's own attempt (./outbox.ts) or claimed and marked by the relay (./relay.ts). Time is the
// database's (now()).
import { query, type Sql } from '../db/sql';
import type { QueueTable } from '../relay/statements';
import type { EnqueuedSignal, PendingSignal, RunStart, SignalOutcome } from './kinds';

/** NOTIFY channel of new pending signals (a trigger on workflow_signals): the relay LISTENs. */
export const SIGNALS_CHANNEL = 'workflow_signals';

/** How long the relay leaves a new signal to the request that wrote it: longer than that request's attempt. */
export const API_ATTEMPT_GRACE_SECONDS = 3;

/**
 * A signal may go now when every earlier signal of its run went (they are delivered in order) and its
 * run was started (a run whose start is pending would answer "not found").
 */
const READY = `not exists (select 1 from workflow_signals e where e.workflow_id = s.workflow_id and e.delivered_at is null and e.id < s.id)
  and not exists (select 1 from workflow_starts w where w.workflow_id = s.workflow_id and w.started_at is null)`;

const ENQUEUE = query(
  'workflow-signals.enqueue',
  `insert into workflow_signals (workflow_id, signal, args, start, next_attempt_at)
   values ($1, $2, $3::jsonb, $4::jsonb, now() + make_interval(secs => $5)) returning id`,
);

/** Writes the signal in the caller's transaction. */
export async function enqueueSignal(sql: Sql, signal: PendingSignal): Promise<EnqueuedSignal> {
  const row = await sql.one<{ id: string }>(ENQUEUE, [
    signal.workflowId,
    signal.signal,
    JSON.stringify(signal.args),
    signal.start ? JSON.stringify(signal.start) : null,
    API_ATTEMPT_GRACE_SECONDS,
  ]);
  return { ...signal, id: row!.id };
}

const READY_NOW = query(
  'workflow-signals.ready',
  `select 1 as ready from workflow_signals s where id = $1 and delivered_at is null and ${READY}`,
);

/** Whether the API may send this signal itself now (nothing of its run waits before it). */
export async function isReady(sql: Sql, id: string): Promise<boolean> {
  return (await sql.one(READY_NOW, [id])) !== undefined;
}

// The API's attempt skips a row the relay holds (it is sending it right now): never waits on its lock.
const UNLOCKED = `id = (select id from workflow_signals where id = $1 and delivered_at is null for update skip locked)`;

const MARK_DELIVERED = query(
  'workflow-signals.mark-delivered',
  `update workflow_signals set delivered_at = now(), outcome = $2, attempts = attempts + 1, last_error = null where ${UNLOCKED}`,
);

export async function markDelivered(sql: Sql, id: string, outcome: SignalOutcome): Promise<void> {
  await sql.exec(MARK_DELIVERED, [id, outcome]);
}

const FAILED_ATTEMPT = query(
  'workflow-signals.failed-attempt',
  `update workflow_signals set attempts = attempts + 1, last_error = $2, next_attempt_at = now() where ${UNLOCKED}`,
);

/** The request's own attempt failed (or could not be made): the relay takes it from now on, at once. */
export async function recordFailedAttempt(sql: Sql, id: string, error: string): Promise<void> {
  await sql.exec(FAILED_ATTEMPT, [id, error]);
}

// --- The relay's side (its claiming transaction) ------------------------------------------------

/** A pending signal as the relay claims it (`start` is null for a plain signal). */
export type ClaimedSignal = Omit<EnqueuedSignal, 'start'> & { start: RunStart | null };

/** The relay loop's queue on workflow_signals (src/relay/statements.ts). */
export const SIGNALS_QUEUE: QueueTable = {
  name: 'workflow-signals',
  table: 'workflow_signals',
  alias: 's',
  columns: `s.id, s.workflow_id as "workflowId", s.signal, s.args, s.start`,
  pending: 's.delivered_at is null',
  ready: READY,
  // Temporal answers again: signals that failed are due now (new ones stay the API's).
  recoversTriedOnly: true,
};

const DELIVERED = query(
  'workflow-signals.delivered',
  `update workflow_signals set delivered_at = now(), outcome = $2, attempts = attempts + 1, last_error = null where id = any($1::bigint[])`,
);

export async function markClaimedDelivered(sql: Sql, outcome: SignalOutcome, rows: ClaimedSignal[]): Promise<void> {
  await sql.exec(DELIVERED, [rows.map((r) => r.id), outcome]);
}
