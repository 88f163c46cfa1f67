// The pg pool as the database semantic conventions name it, read at each scrape: connections in use
// and idle, requests waiting for one, and the most it may open. A pool at its max with requests
// waiting is where a slow database shows first (docs/runbook.md, "Metrics").
import type { Meter } from '@opentelemetry/api';
import type { Pool } from 'pg';

export function observePool(meter: Meter, pool: Pool, name = 'activation-sys'): void {
  const labels = { 'db.client.connection.pool.name': name };
  const count = meter.createObservableUpDownCounter('db.client.connection.count', {
    unit: '{connection}',
    description: 'Connections of the pg pool, by state (used: lent to a query or transaction; idle: open and free)',
  });
  const pending = meter.createObservableUpDownCounter('db.client.connection.pending_requests', {
    unit: '{request}',
    description: 'Requests waiting for a connection of the pg pool',
  });
  const max = meter.createObservableUpDownCounter('db.client.connection.max', {
    unit: '{connection}',
    description: 'The most connections the pg pool may open',
  });
  meter.addBatchObservableCallback(
    (result) => {
      result.observe(count, pool.totalCount - pool.idleCount, { ...labels, 'db.client.connection.state': 'used' });
      result.observe(count, pool.idleCount, { ...labels, 'db.client.connection.state': 'idle' });
      result.observe(pending, pool.waitingCount, labels);
      result.observe(max, pool.options.max ?? 10, labels);
    },
    [count, pending, max],
  );
}
