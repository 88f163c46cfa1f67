// The start relay: starts the runs whose pending start (./repository.ts) is still open, as soon as
// Temporal answers. It runs in the worker process beside the webhook inbox relay, on the same relay
// loop (src/relay/loop.ts), and reads only Postgres to know what to start: a Temporal outage stops
// nothing but the starts themselves, which it retries with backoff.
import type { Logger } from 'pino';
import type { Db } from '../db/sql';
import { createRelay, type Relay, type RelayQueue } from '../relay/loop';
import { startWith, type PendingStart, type WorkflowStarters } from './kinds';
import { queueStatements } from '../relay/statements';
import { markClaimedStarted, STARTS_CHANNEL, STARTS_QUEUE, type ClaimedStart } from './repository';

export interface StartRelayOptions {
  db: Db;
  starters: WorkflowStarters;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Starts claimed and made together. */
  batchSize: number;
  pollIntervalMs: number;
  maxBackoffMs: number;
  baseBackoffMs?: number;
}

export type StartRelay = Relay<'started'>;

function startsQueue(starters: WorkflowStarters): RelayQueue<ClaimedStart, 'started'> {
  return {
    channel: STARTS_CHANNEL,
    outcomes: ['started'],
    reached: 'started',
    ...queueStatements<ClaimedStart>(STARTS_QUEUE),
    async handle(row) {
      // The row was written from a PendingStart of this kind: its args are that kind's.
      const start = { kind: row.kind, workflowId: row.workflowId, args: row.args } as PendingStart;
      await startWith(starters, start, { ageMs: row.ageMs });
      return 'started';
    },
    mark: (tx, _outcome, rows) => markClaimedStarted(tx, rows),
  };
}

/**
 * Exactly one run per pending start: a start is marked in the transaction that claimed it (`for update
 * skip locked`, so two relays never claim one row), and a start repeated after a crash before that
 * commit, or racing the API's own attempt, finds the run already there (starts are idempotent by
 * workflow id: REJECT_DUPLICATE) and counts as made.
 */
export function createStartRelay(opts: StartRelayOptions): StartRelay {
  return createRelay({
    db: opts.db,
    queue: startsQueue(opts.starters),
    texts: {
      name: 'start relay',
      failing: 'Temporal does not take workflow starts',
      partial: 'some workflow starts were refused',
      recovered: 'workflow starts succeed again',
      unreadable: 'pending starts could not be read or marked',
    },
    logger: opts.logger,
    batchSize: opts.batchSize,
    pollIntervalMs: opts.pollIntervalMs,
    maxBackoffMs: opts.maxBackoffMs,
    baseBackoffMs: opts.baseBackoffMs,
  });
}
