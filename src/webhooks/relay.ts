// The relay: hands inbox rows (./inbox.ts) to the payment settlement workflows. It runs in the
// worker process (worker/main.ts), independently of Temporal's health, on the relay loop every
// queue shares (src/relay/loop.ts): it claims payment heads with `for update skip locked`, signals
// each payment's workflow (signal-with-start), and marks the rows in the same transaction.
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../db/sql';
import { createRelay, type Relay, type RelayBatch as RelayBatchOf, type RelayQueue } from '../relay/loop';
import { queueStatements } from '../relay/statements';
import { runOnOwnClient } from '../temporal/connection';
import { createPaymentRuns } from '../payments/runs-temporal';
import type { PaymentRuns, ProcessorEvent } from '../payments/runs';
import { DELIVERABLE, INBOX_CHANNEL } from './inbox';
import { INBOX_QUEUE, markInbox, type ClaimedInboxRow } from './repository';

export interface InboxRelayOptions {
  db: Db;
  runs: Pick<PaymentRuns, 'deliverEvent'>;
  logger: Logger;
  /** Rows (one per payment) claimed and signalled together. */
  batchSize: number;
  /** Longest idle wait without a notification (a lost NOTIFY, a listener reconnecting). */
  pollIntervalMs: number;
  /** Cap of the wait after failed deliveries, for the relay and for each row. */
  maxBackoffMs: number;
  /** The first wait after a failed delivery, doubled per failure (default 0.5 s). */
  baseBackoffMs?: number;
}

/** delivered: signalled; skipped: its payment settled meanwhile, marked without a signal. */
type InboxOutcome = 'delivered' | 'skipped';

/** What one claim did. */
export type RelayBatch = RelayBatchOf<InboxOutcome>;
export type InboxRelay = Relay<InboxOutcome>;

/** Can this event still change the payment? The route's own rule (DELIVERABLE), read again at hand-over time: the payment may have settled since. */
const stillMatters = (row: ClaimedInboxRow): boolean => DELIVERABLE[row.type].includes(row.paymentStatus);

function eventOf(row: ClaimedInboxRow): ProcessorEvent {
  return { eventId: row.eventId, type: row.type, ...(row.failureMessage ? { failureMessage: row.failureMessage } : {}) };
}

/** The inbox as the relay loop (src/relay/loop.ts) drains it: payment heads, signalled by signal-with-start. */
function inboxQueue(runs: InboxRelayOptions['runs']): RelayQueue<ClaimedInboxRow, InboxOutcome> {
  return {
    channel: INBOX_CHANNEL,
    outcomes: ['delivered', 'skipped'],
    reached: 'delivered',
    ...queueStatements<ClaimedInboxRow>(INBOX_QUEUE),
    async handle(row) {
      if (!stillMatters(row)) return 'skipped';
      // One row per payment per claim: the batch's signals go in parallel without reordering any payment.
      await runs.deliverEvent(row.paymentId, eventOf(row));
      return 'delivered';
    },
    mark: (tx, outcome, rows) => markInbox(tx, outcome, rows),
  };
}

/**
 * At least once, in order per payment, across restarts of the API, the worker and Temporal:
 * a row is marked `delivered` in the transaction that claimed it, after its signal was taken,
 * so a crash before the commit leaves it pending and it is signalled again (the workflow drops
 * event ids it has seen). A payment's next row is claimed only once the one before it is done.
 * Backoff, LISTEN and polling are the relay loop's (src/relay/loop.ts): one row Temporal keeps
 * refusing holds back its own payment only.
 */
export function createInboxRelay(opts: InboxRelayOptions): InboxRelay {
  return createRelay({
    db: opts.db,
    queue: inboxQueue(opts.runs),
    texts: {
      name: 'webhook relay',
      failing: 'settlement workflows cannot take events',
      partial: 'some events were not taken',
      recovered: 'deliveries succeed again',
      unreadable: 'the inbox could not be read or marked',
    },
    logger: opts.logger,
    batchSize: opts.batchSize,
    pollIntervalMs: opts.pollIntervalMs,
    maxBackoffMs: opts.maxBackoffMs,
    baseBackoffMs: opts.baseBackoffMs,
  });
}

export type InboxRelayConfig = Pick<
  Config,
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_TASK_QUEUE'
  | 'TEMPORAL_PAYLOAD_KEYS'
  | 'TEMPORAL_SEARCH_ATTRIBUTES'
  | 'NODE_ENV'
  | 'PAYMENT_SETTLEMENT_SILENCE_SECONDS'
  | 'PAYMENT_SETTLEMENT_MAX_LOOKUPS'
  | 'PAYMENT_SETTLEMENT_LINGER_SECONDS'
  | 'WEBHOOK_RELAY_BATCH_SIZE'
  | 'WEBHOOK_RELAY_POLL_SECONDS'
  | 'WEBHOOK_RELAY_MAX_BACKOFF_SECONDS'
>;

/** The relay as the worker runs it, on its own Temporal client. Stop it before closing the pool. */
export function startInboxRelay(config: InboxRelayConfig, deps: { db: Db; logger: Logger }): { stop(): Promise<void> } {
  const running = runOnOwnClient(config, (client) =>
    createInboxRelay({
      db: deps.db,
      runs: createPaymentRuns(client, config),
      logger: deps.logger.child({ component: 'webhook-relay' }),
      batchSize: config.WEBHOOK_RELAY_BATCH_SIZE,
      pollIntervalMs: config.WEBHOOK_RELAY_POLL_SECONDS * 1000,
      maxBackoffMs: config.WEBHOOK_RELAY_MAX_BACKOFF_SECONDS * 1000,
    }),
  );
  deps.logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'webhook relay running');
  return running;
}
