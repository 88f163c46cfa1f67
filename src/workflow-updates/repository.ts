// Leases on an action's derived update id (table workflow_update_leases; src/temporal/update.ts,
// executeAction; docs/decisions/workflow-updates.md). A lease says which request is sending the action
// right now and under which update id; once it expires unanswered (the request answered
// SERVICE_UNAVAILABLE, or its process died), the next request with the same derived id takes it over
// and sends that same update id, so it joins the first. Time is the database's (now()): the APIs that
// take and take over a lease may run on different hosts.
import { query, type Sql } from '../db/sql';

/** How long a row left behind (its outcome unknown and never retried) is kept after it expired: a retry later than that is judged anew. */
export const LEASE_KEEP_HOURS = 24;

const TAKE = query(
  'workflow-updates.take-lease',
  `insert into workflow_update_leases (derived_id, update_id, expires_at)
   values ($1, $2, now() + make_interval(secs => $3::double precision))
   on conflict (derived_id) do update set expires_at = excluded.expires_at
     where workflow_update_leases.expires_at <= now()
   returning update_id as "updateId"`,
);

/**
 * Takes the lease on `derivedId` for `ttlMs`, in one statement: on a new derived id it is written with
 * `updateId`; on an expired one it is taken over and keeps the update id it had (the earlier request's,
 * which this one joins). Answers the update id to send under the lease, or null when another request
 * holds it right now (that one is in flight: this one is not a retry of it).
 */
export async function takeUpdateLease(sql: Sql, derivedId: string, updateId: string, ttlMs: number): Promise<string | null> {
  const row = await sql.one<{ updateId: string }>(TAKE, [derivedId, updateId, ttlMs / 1000]);
  return row?.updateId ?? null;
}

// Rows other requests left behind long ago go with it (an index on expires_at): no schedule of their own.
const RELEASE = query(
  'workflow-updates.release-lease',
  `delete from workflow_update_leases
    where (derived_id = $1 and update_id = $2) or expires_at < now() - make_interval(hours => $3)`,
);

/**
 * The update answered (its result or its failure): the lease goes, so the next request with the same
 * derived id is a new request (a new update id), judged afresh by the run.
 */
export async function releaseUpdateLease(sql: Sql, derivedId: string, updateId: string): Promise<void> {
  await sql.exec(RELEASE, [derivedId, updateId, LEASE_KEEP_HOURS]);
}

const EXPIRE = query(
  'workflow-updates.expire-lease',
  `update workflow_update_leases set expires_at = now() where derived_id = $1 and update_id = $2 and expires_at > now()`,
);

/** The update's outcome is unknown (no answer in time): the lease ends now, so the client's retry takes it over at once and joins. */
export async function expireUpdateLease(sql: Sql, derivedId: string, updateId: string): Promise<void> {
  await sql.exec(EXPIRE, [derivedId, updateId]);
}
