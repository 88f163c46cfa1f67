// The signal relay: delivers the signals whose pending row (./repository.ts) is still open, in order
// per run, as soon as Temporal answers. It runs in the worker beside the start relay, on the same
// relay loop (src/relay/loop.ts); a run's signals wait for its pending start.
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../db/sql';
import { createRelay, type Relay, type RelayQueue } from '../relay/loop';
import { queueStatements } from '../relay/statements';
import { runOnOwnClient } from '../temporal/connection';
import type { SignalOutcome, SignalSender } from './kinds';
import { markClaimedDelivered, SIGNALS_CHANNEL, SIGNALS_QUEUE, type ClaimedSignal } from './repository';
import { temporalSignalSender } from './temporal';

export interface SignalRelayOptions {
  db: Db;
  send: SignalSender;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  batchSize: number;
  pollIntervalMs: number;
  maxBackoffMs: number;
  baseBackoffMs?: number;
}

export type SignalRelay = Relay<SignalOutcome>;

function signalsQueue(send: SignalSender): RelayQueue<ClaimedSignal, SignalOutcome> {
  return {
    channel: SIGNALS_CHANNEL,
    outcomes: ['signalled', 'closed'],
    reached: 'signalled',
    ...queueStatements<ClaimedSignal>(SIGNALS_QUEUE),
    handle: ({ start, ...signal }) => send(start ? { ...signal, start } : signal),
    mark: (tx, outcome, rows) => markClaimedDelivered(tx, outcome, rows),
  };
}

/**
 * At least once, in order per run: a signal is marked in the transaction that claimed it, and only
 * the first pending signal of a run is claimed. A signal repeated after a crash before that commit, or
 * racing the API's own attempt, reaches the run twice: the workflows' handlers are idempotent.
 */
export function createSignalRelay(opts: SignalRelayOptions): SignalRelay {
  return createRelay({
    db: opts.db,
    queue: signalsQueue(opts.send),
    texts: {
      name: 'signal relay',
      failing: 'Temporal does not take signals',
      partial: 'some signals were refused',
      recovered: 'signals succeed again',
      unreadable: 'pending signals could not be read or marked',
    },
    logger: opts.logger,
    batchSize: opts.batchSize,
    pollIntervalMs: opts.pollIntervalMs,
    maxBackoffMs: opts.maxBackoffMs,
    baseBackoffMs: opts.baseBackoffMs,
  });
}

export type SignalRelayConfig = Parameters<typeof runOnOwnClient>[0] &
  Pick<Config, 'SIGNAL_RELAY_BATCH_SIZE' | 'SIGNAL_RELAY_POLL_SECONDS' | 'SIGNAL_RELAY_MAX_BACKOFF_SECONDS'>;

/** The relay as the worker runs it, on its own Temporal client. Stop it before closing the pool. */
export function startSignalRelay(config: SignalRelayConfig, deps: { db: Db; logger: Logger }): { stop(): Promise<void> } {
  const logger = deps.logger.child({ component: 'signal-relay' });
  const running = runOnOwnClient(config, (client) =>
    createSignalRelay({
      db: deps.db,
      send: temporalSignalSender(client),
      logger,
      batchSize: config.SIGNAL_RELAY_BATCH_SIZE,
      pollIntervalMs: config.SIGNAL_RELAY_POLL_SECONDS * 1000,
      maxBackoffMs: config.SIGNAL_RELAY_MAX_BACKOFF_SECONDS * 1000,
      baseBackoffMs: Math.min(500, config.SIGNAL_RELAY_MAX_BACKOFF_SECONDS * 1000),
    }),
  );
  deps.logger.info('signal relay running');
  return running;
}
