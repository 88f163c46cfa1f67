import { query, type Sql } from '../db/sql';

/** What one relay queue holds back: rows still waiting, and the age of the oldest (how far the relay is behind). */
export interface QueueBacklog {
  queue: 'webhook_inbox' | 'workflow_starts' | 'workflow_signals' | 'message_outbox';
  depth: number;
  lagSeconds: number;
}

// Each branch reads its table's pending partial index only; an empty queue has no lag (0).
const BACKLOG = query(
  'telemetry.relay-backlog',
  `select 'webhook_inbox' as queue, count(*)::int as depth,
          coalesce(extract(epoch from now() - min(received_at)), 0)::float8 as "lagSeconds"
     from webhook_inbox where status = 'pending'
   union all
   select 'workflow_starts', count(*)::int, coalesce(extract(epoch from now() - min(created_at)), 0)::float8
     from workflow_starts where started_at is null
   union all
   select 'workflow_signals', count(*)::int, coalesce(extract(epoch from now() - min(created_at)), 0)::float8
     from workflow_signals where delivered_at is null
   union all
   select 'message_outbox', count(*)::int, coalesce(extract(epoch from now() - min(created_at)), 0)::float8
     from message_outbox where status = 'pending'`,
);

/** The backlog of the worker's four relays (src/relay/loop.ts), read in one statement at scrape time. */
export function readRelayBacklog(sql: Sql): Promise<QueueBacklog[]> {
  return sql.rows<QueueBacklog & Record<string, unknown>>(BACKLOG);
}
