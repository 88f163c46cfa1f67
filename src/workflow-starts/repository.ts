// Pending workflow starts (table workflow_starts): written in the transaction of the business rows,
// marked by the API's own attempt (./launch.ts) or claimed and marked by the relay (./relay.ts).
// Time is the database's (now()): the API that wrote a row and the relay that claims it may run on
// different hosts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import { query, type Sql } from '../db/sql';
import type { QueueStatements } from '../relay/statements';
import type { PendingStart, StartKind } from './kinds';

/** NOTIFY channel of new pending starts (a trigger on workflow_starts): the relay LISTENs. */
export const STARTS_CHANNEL = 'workflow_starts';

/**
 * How long the relay leaves a new start to the request that wrote it: longer than that request's
 * attempt (START_DEADLINE_MS), so the two rarely race (when they do, the second start finds the run).
 * A request whose attempt failed makes its start due at once.
 */
export const API_ATTEMPT_GRACE_SECONDS = 10;

/** Writes the start in the caller's transaction; a second write for the same run changes nothing. */
export async function enqueueStart(sql: Sql, start: PendingStart): Promise<void> {
  await sql.exec(
    query(
      'workflow-starts.enqueue',
      `insert into workflow_starts (kind, workflow_id, args, next_attempt_at)
       values ($1, $2, $3::jsonb, now() + make_interval(secs => $4))
       on conflict (workflow_id) do nothing`,
    ),
    [start.kind, start.workflowId, JSON.stringify(start.args), API_ATTEMPT_GRACE_SECONDS],
  );
}

// The API's attempt skips a row the relay holds (it is starting it right now): never waits on its lock.
const UNLOCKED = `id = (select id from workflow_starts where workflow_id = ? and started_at is null for update skip locked)`;

/** The request's own start was taken. */
export async function markStarted(em: EntityManager, workflowId: string): Promise<void> {
  await em.execute(`update workflow_starts set started_at = now(), attempts = attempts + 1, last_error = null where ${UNLOCKED}`, [
    workflowId,
  ]);
}

/** The request's own start failed: the relay takes it from now on, at once. */
export async function recordFailedAttempt(em: EntityManager, workflowId: string, error: string): Promise<void> {
  await em.execute(`update workflow_starts set attempts = attempts + 1, last_error = ?, next_attempt_at = now() where ${UNLOCKED}`, [
    error,
    workflowId,
  ]);
}

// --- The relay's side (a pg client in its claiming transaction) ---------------------------------

export interface ClaimedStart {
  id: string;
  kind: StartKind;
  workflow_id: string;
  args: Record<string, unknown>;
  /** Milliseconds since the rows committed. */
  age_ms: number;
}

const CLAIM = `select id, kind, workflow_id, args, (extract(epoch from now() - created_at) * 1000)::float8 as age_ms
  from workflow_starts where started_at is null and next_attempt_at <= now()
 order by next_attempt_at, id limit $1
 for update skip locked`;
const NEXT_DUE = `select (extract(epoch from min(next_attempt_at) - now()) * 1000)::float8 as due_in_ms
  from workflow_starts where started_at is null`;
const STARTED = `update workflow_starts set started_at = now(), attempts = attempts + 1, last_error = null where id = any($1::bigint[])`;
// Each failed start waits base x 2^attempts (capped) before it is claimed again.
const FAILED = `update workflow_starts w set attempts = w.attempts + 1, last_error = f.error,
    next_attempt_at = now() + make_interval(secs => least($3::float8, $4::float8 * power(2, w.attempts)))
  from unnest($1::bigint[], $2::text[]) as f(id, error) where w.id = f.id`;
// Temporal answers again: starts that failed are due now, not after their own backoff (new ones stay the API's).
const RECOVERED = `update workflow_starts set next_attempt_at = now() where started_at is null and attempts > 0 and next_attempt_at > now()`;

/** The relay loop's statements on workflow_starts (src/relay/statements.ts). */
export const STARTS_STATEMENTS: QueueStatements = {
  name: 'workflow-starts',
  claim: CLAIM,
  nextDue: NEXT_DUE,
  failed: FAILED,
  recovered: RECOVERED,
};

export async function markClaimedStarted(client: PoolClient, rows: ClaimedStart[]): Promise<void> {
  await client.query({ name: 'workflow-starts-started', text: STARTED, values: [rows.map((r) => r.id)] });
}
