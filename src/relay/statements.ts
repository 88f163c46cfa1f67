// The statements a relayed table answers the relay loop's common questions with: which rows are due
// (claim), when the next one is (nextDue), a failed hand-over's backoff (failed), and "the outside
// answers again" (recovered). Each table keeps its own SQL; this turns it into the queue's methods.
import type { PoolClient } from 'pg';
import type { RelayQueue } from './loop';

export interface QueueStatements {
  /** Prefix of the prepared statements' names, e.g. `webhook-inbox`. */
  name: string;
  /** Due rows, `for update skip locked`; $1 = how many. */
  claim: string;
  /** One row with `due_in_ms`: until the first waiting row is due (null: none waits). */
  nextDue: string;
  /** $1 = row ids (bigint[]), $2 = their errors (text[]), $3 = the backoff cap, $4 = its base, both in seconds. */
  failed: string;
  /** Makes the rows that waited on the outside due now. */
  recovered: string;
}

type CommonMethods<Row> = Pick<RelayQueue<Row, string>, 'claim' | 'nextDueInMs' | 'markFailed' | 'makeWaitingDue'>;

export function queueStatements<Row extends { id: string }>(s: QueueStatements): CommonMethods<Row> {
  return {
    async claim(client: PoolClient, limit: number) {
      return (await client.query<Row & Record<string, unknown>>({ name: `${s.name}-claim`, text: s.claim, values: [limit] })).rows;
    },
    async nextDueInMs(client: PoolClient) {
      const { rows } = await client.query<{ due_in_ms: number | null }>({ name: `${s.name}-next-due`, text: s.nextDue });
      return rows[0]?.due_in_ms ?? null;
    },
    async markFailed(client, failures, backoff) {
      await client.query({
        name: `${s.name}-failed`,
        text: s.failed,
        values: [failures.map((f) => f.row.id), failures.map((f) => f.error), backoff.maxMs / 1000, backoff.baseMs / 1000],
      });
    },
    async makeWaitingDue(client: PoolClient) {
      return (await client.query({ name: `${s.name}-recovered`, text: s.recovered })).rowCount ?? 0;
    },
  };
}
