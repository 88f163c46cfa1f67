// The worker's view of its relays (src/relay/loop.ts) as gauges, read from Postgres at each scrape:
// how many rows each queue holds back and how old the oldest is. A webhook inbox that grows while
// its lag climbs means settlements are not getting their events (docs/runbook.md, "Metrics").
import type { Meter } from '@opentelemetry/api';
import type { Sql } from '../db/sql';
import { readRelayBacklog } from './backlog-reads';

export function observeRelayBacklog(meter: Meter, sql: Sql): void {
  const depth = meter.createObservableGauge('relay_backlog_rows', {
    description:
      'Rows waiting for their relay: webhook_inbox (events for the settlement runs), workflow_starts (pending starts), workflow_signals (pending signals), message_outbox (one-time codes)',
  });
  const lag = meter.createObservableGauge('relay_lag_seconds', {
    description: 'Age of the oldest row still waiting in each relay queue (0 when empty)',
  });
  meter.addBatchObservableCallback(
    async (result) => {
      for (const row of await readRelayBacklog(sql)) {
        result.observe(depth, row.depth, { queue: row.queue });
        result.observe(lag, row.lagSeconds, { queue: row.queue });
      }
    },
    [depth, lag],
  );
}
