// The one set of queue statements every relayed table (webhook inbox, workflow starts, workflow signals,
// message outbox) answers the relay loop's common questions with: which rows are due (claim), when the
// next one is (nextDue), a failed hand-over's backoff (failed), and "the outside answers again"
// (recovered). A table describes itself (QueueTable: its columns and what "pending" means, in its area's
// repository); the statements are written here once and become the queue's methods.
import { query, type Sql } from '../db/sql';
import type { RelayQueue } from './loop';

/** A relayed table, as the queue statements need it. Every table has `id` (bigint), `attempts`, `last_error` and `next_attempt_at`. */
export interface QueueTable {
  /** Prefix of the named statements' names, e.g. `webhooks.inbox`. */
  name: string;
  table: string;
  /** The table's alias in every statement; the fragments below name their columns through it. */
  alias: string;
  /** What a claim answers (the select list), e.g. `i.id, i.event_id as "eventId"`. */
  columns: string;
  /** What the claim joins for its columns, e.g. `join payments p on p.id = i.payment_id`. */
  join?: string;
  /** A row not handed over yet, e.g. `i.status = 'pending'`. */
  pending: string;
  /** Besides pending, what a row needs to be claimed (no earlier row of its payment or run still pending). */
  ready?: string;
  /** The claim's order (default: the earliest due first, then by id). */
  order?: string;
  /** The latest a failed row waits until, whatever its backoff (the message outbox: the code's expiry). */
  waitsAtMost?: string;
  /** Only rows tried before are made due when the outside answers again (new ones stay the API's for its attempt). */
  recoversTriedOnly?: boolean;
}

/** The statements' texts (exported for the tests): `claim` $1 = how many; `failed` $1 = row ids, $2 = their errors, $3 = the backoff cap, $4 = its base, both in seconds. */
export function queueStatementTexts(t: QueueTable): { claim: string; nextDue: string; failed: string; recovered: string } {
  const a = t.alias;
  const waiting = t.ready ? `${t.pending} and (${t.ready})` : t.pending;
  // Each failed row waits base x 2^attempts (capped) before it is claimed again.
  const backoff = `now() + make_interval(secs => least($3::float8, $4::float8 * power(2, ${a}.attempts)))`;
  return {
    claim: `select ${t.columns}
  from ${t.table} ${a}${t.join ? ` ${t.join}` : ''}
 where ${waiting} and ${a}.next_attempt_at <= now()
 order by ${t.order ?? `${a}.next_attempt_at, ${a}.id`} limit $1
 for update of ${a} skip locked`,
    nextDue: `select (extract(epoch from min(${a}.next_attempt_at) - now()) * 1000)::float8 as "dueInMs"
  from ${t.table} ${a} where ${waiting}`,
    failed: `update ${t.table} ${a} set attempts = ${a}.attempts + 1, last_error = f.error,
    next_attempt_at = ${t.waitsAtMost ? `least(${t.waitsAtMost}, ${backoff})` : backoff}
  from unnest($1::bigint[], $2::text[]) as f(id, error) where ${a}.id = f.id`,
    recovered: `update ${t.table} ${a} set next_attempt_at = now()
 where ${t.pending}${t.recoversTriedOnly ? ` and ${a}.attempts > 0` : ''} and ${a}.next_attempt_at > now()`,
  };
}

type CommonMethods<Row> = Pick<RelayQueue<Row, string>, 'claim' | 'nextDueInMs' | 'markFailed' | 'makeWaitingDue'>;

export function queueStatements<Row extends { id: string }>(t: QueueTable): CommonMethods<Row> {
  const texts = queueStatementTexts(t);
  const claim = query(`${t.name}-claim`, texts.claim);
  const nextDue = query(`${t.name}-next-due`, texts.nextDue);
  const failed = query(`${t.name}-failed`, texts.failed);
  const recovered = query(`${t.name}-recovered`, texts.recovered);
  return {
    claim: (tx: Sql, limit: number) => tx.rows<Row & Record<string, unknown>>(claim, [limit]),
    async nextDueInMs(tx: Sql) {
      return (await tx.one<{ dueInMs: number | null }>(nextDue))?.dueInMs ?? null;
    },
    async markFailed(tx, failures, backoff) {
      await tx.exec(failed, [failures.map((f) => f.row.id), failures.map((f) => f.error), backoff.maxMs / 1000, backoff.baseMs / 1000]);
    },
    makeWaitingDue: (tx: Sql) => tx.exec(recovered),
  };
}
