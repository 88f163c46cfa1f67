// The statements a relayed table answers the relay loop's common questions with: which rows are due
// (claim), when the next one is (nextDue), a failed hand-over's backoff (failed), and "the outside
// answers again" (recovered). Each table keeps its own SQL in its area's repository; this turns it
// into the queue's methods.
import { query, type Sql } from '../db/sql';
import type { RelayQueue } from './loop';

export interface QueueStatements {
  /** Prefix of the named statements' names, e.g. `webhooks.inbox`. */
  name: string;
  /** Due rows, `for update skip locked`; $1 = how many. */
  claim: string;
  /** One row with `dueInMs`: until the first waiting row is due (null: none waits). */
  nextDue: string;
  /** $1 = row ids (bigint[]), $2 = their errors (text[]), $3 = the backoff cap, $4 = its base, both in seconds. */
  failed: string;
  /** Makes the rows that waited on the outside due now. */
  recovered: string;
}

type CommonMethods<Row> = Pick<RelayQueue<Row, string>, 'claim' | 'nextDueInMs' | 'markFailed' | 'makeWaitingDue'>;

export function queueStatements<Row extends { id: string }>(s: QueueStatements): CommonMethods<Row> {
  const claim = query(`${s.name}-claim`, s.claim);
  const nextDue = query(`${s.name}-next-due`, s.nextDue);
  const failed = query(`${s.name}-failed`, s.failed);
  const recovered = query(`${s.name}-recovered`, s.recovered);
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
