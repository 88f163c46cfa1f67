// Pending workflow starts (table workflow_starts): written in the transaction of the business rows,
// marked by the API's own attempt (./launch.ts) or claimed and marked by the relay (./relay.ts).
// Time is the database's (now()): the API that wrote a row and the relay that claims it may run on
// different hosts.
import { query, type Sql } from '../db/sql';
import type { QueueTable } from '../relay/statements';
import type { PendingStart, StartKind } from './kinds';

/** NOTIFY channel of new pending starts (a trigger on workflow_starts): the relay LISTENs. */
export const STARTS_CHANNEL = 'workflow_starts';

/**
 * How long the relay leaves a new start to the request that wrote it: longer than that request's
 * attempt (START_DEADLINE_MS), so the two rarely race (when they do, the second start finds the run).
 * A request whose attempt failed makes its start due at once.
 */
export const API_ATTEMPT_GRACE_SECONDS = 10;

const ENQUEUE = query(
  'workflow-starts.enqueue',
  `insert into workflow_starts (kind, workflow_id, args, next_attempt_at)
   values ($1, $2, $3::jsonb, now() + make_interval(secs => $4))
   on conflict (workflow_id) do nothing`,
);

/** Writes the start in the caller's transaction; a second write for the same run changes nothing. */
export async function enqueueStart(sql: Sql, start: PendingStart): Promise<void> {
  await sql.exec(ENQUEUE, [start.kind, start.workflowId, JSON.stringify(start.args), API_ATTEMPT_GRACE_SECONDS]);
}

// The API's attempt skips a row the relay holds (it is starting it right now): never waits on its lock.
const UNLOCKED = `id = (select id from workflow_starts where workflow_id = $1 and started_at is null for update skip locked)`;

const MARK_STARTED = query(
  'workflow-starts.mark-started',
  `update workflow_starts set started_at = now(), attempts = attempts + 1, last_error = null where ${UNLOCKED}`,
);

/** The request's own start was taken. */
export async function markStarted(sql: Sql, workflowId: string): Promise<void> {
  await sql.exec(MARK_STARTED, [workflowId]);
}

const FAILED_ATTEMPT = query(
  'workflow-starts.failed-attempt',
  `update workflow_starts set attempts = attempts + 1, last_error = $2, next_attempt_at = now() where ${UNLOCKED}`,
);

/** The request's own start failed: the relay takes it from now on, at once. */
export async function recordFailedAttempt(sql: Sql, workflowId: string, error: string): Promise<void> {
  await sql.exec(FAILED_ATTEMPT, [workflowId, error]);
}

// --- The relay's side (its claiming transaction) ------------------------------------------------

export interface ClaimedStart {
  id: string;
  kind: StartKind;
  workflowId: string;
  args: Record<string, unknown>;
  /** Milliseconds since the rows committed. */
  ageMs: number;
}

/** The relay loop's queue on workflow_starts (src/relay/statements.ts). */
export const STARTS_QUEUE: QueueTable = {
  name: 'workflow-starts',
  table: 'workflow_starts',
  alias: 'w',
  columns: `w.id, w.kind, w.workflow_id as "workflowId", w.args, (extract(epoch from now() - w.created_at) * 1000)::float8 as "ageMs"`,
  pending: 'w.started_at is null',
  // Temporal answers again: starts that failed are due now, not after their own backoff (new ones stay the API's).
  recoversTriedOnly: true,
};

const STARTED = query(
  'workflow-starts.started',
  `update workflow_starts set started_at = now(), attempts = attempts + 1, last_error = null where id = any($1::bigint[])`,
);

export async function markClaimedStarted(sql: Sql, rows: ClaimedStart[]): Promise<void> {
  await sql.exec(STARTED, [rows.map((r) => r.id)]);
}
