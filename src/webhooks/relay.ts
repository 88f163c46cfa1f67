// The relay: hands inbox rows (./inbox.ts) to the payment settlement workflows. It runs in the
// worker process (worker/main.ts), independently of Temporal's health, on the relay loop every
// queue shares (src/relay/loop.ts): it claims payment heads with `for update skip locked`, signals
// each payment's workflow (signal-with-start), and marks the rows in the same transaction.
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { PaymentStatus } from '../entities/payment';
import { createRelay, type Relay, type RelayBatch as RelayBatchOf, type RelayQueue } from '../relay/loop';
import { queueStatements } from '../relay/statements';
import { runOnOwnClient } from '../temporal/connection';
import { createPaymentWorkflows, type PaymentWorkflows, type ProcessorEvent } from '../temporal/payments';
import { DELIVERABLE, INBOX_CHANNEL } from './inbox';

export interface InboxRelayOptions {
  pool: Pool;
  workflows: Pick<PaymentWorkflows, 'deliverEvent'>;
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

interface ClaimedRow {
  id: string;
  event_id: string;
  payment_id: string;
  type: ProcessorEvent['type'];
  failure_message: string | null;
  payment_status: PaymentStatus;
}

// A row is claimable when it is due and no earlier row of its payment is still pending: one row per
// payment per claim, in arrival order. A head locked by another relay is skipped, and so is the rest
// of its payment (the earlier pending row hides it), so two relays never reorder a payment.
const HEADS = `i.status = 'pending'
   and not exists (select 1 from webhook_inbox e where e.payment_id = i.payment_id and e.status = 'pending' and e.id < i.id)`;
const CLAIM = `select i.id, i.event_id, i.payment_id, i.type, i.failure_message, p.status as payment_status
  from webhook_inbox i join payments p on p.id = i.payment_id
 where ${HEADS} and i.next_attempt_at <= now()
 order by i.id limit $1
 for update of i skip locked`;
const NEXT_DUE = `select (extract(epoch from min(i.next_attempt_at) - now()) * 1000)::float8 as due_in_ms
  from webhook_inbox i where ${HEADS}`;
const DELIVERED = `update webhook_inbox set status = 'delivered', attempts = attempts + 1, last_error = null, handled_at = now()
  where id = any($1::bigint[])`;
const SKIPPED = `update webhook_inbox set status = 'skipped', handled_at = now() where id = any($1::bigint[])`;
// Each failed row waits base x 2^attempts (capped) before it is claimed again.
const FAILED = `update webhook_inbox i set attempts = i.attempts + 1, last_error = f.error,
    next_attempt_at = now() + make_interval(secs => least($3::float8, $4::float8 * power(2, i.attempts)))
  from unnest($1::bigint[], $2::text[]) as f(id, error) where i.id = f.id`;
// Temporal answers again: what waited on it is due now, not after its own backoff.
const RECOVERED = `update webhook_inbox set next_attempt_at = now() where status = 'pending' and next_attempt_at > now()`;

/** Can this event still change the payment? The route's own rule (DELIVERABLE), read again at hand-over time: the payment may have settled since. */
const stillMatters = (row: ClaimedRow): boolean => DELIVERABLE[row.type].includes(row.payment_status);

function eventOf(row: ClaimedRow): ProcessorEvent {
  return { eventId: row.event_id, type: row.type, ...(row.failure_message ? { failureMessage: row.failure_message } : {}) };
}

/** The inbox as the relay loop (src/relay/loop.ts) drains it: payment heads, signalled by signal-with-start. */
function inboxQueue(workflows: InboxRelayOptions['workflows']): RelayQueue<ClaimedRow, InboxOutcome> {
  return {
    channel: INBOX_CHANNEL,
    outcomes: ['delivered', 'skipped'],
    reached: 'delivered',
    ...queueStatements<ClaimedRow>({ name: 'webhook-inbox', claim: CLAIM, nextDue: NEXT_DUE, failed: FAILED, recovered: RECOVERED }),
    async handle(row) {
      if (!stillMatters(row)) return 'skipped';
      // One row per payment per claim: the batch's signals go in parallel without reordering any payment.
      await workflows.deliverEvent(row.payment_id, eventOf(row));
      return 'delivered';
    },
    async mark(client, outcome, rows) {
      const text = outcome === 'delivered' ? DELIVERED : SKIPPED;
      await client.query({ name: `webhook-inbox-${outcome}`, text, values: [rows.map((r) => r.id)] });
    },
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
    pool: opts.pool,
    queue: inboxQueue(opts.workflows),
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
export function startInboxRelay(config: InboxRelayConfig, deps: { pool: Pool; logger: Logger }): { stop(): Promise<void> } {
  const running = runOnOwnClient(config, (client) =>
    createInboxRelay({
      pool: deps.pool,
      workflows: createPaymentWorkflows(client, config),
      logger: deps.logger.child({ component: 'webhook-relay' }),
      batchSize: config.WEBHOOK_RELAY_BATCH_SIZE,
      pollIntervalMs: config.WEBHOOK_RELAY_POLL_SECONDS * 1000,
      maxBackoffMs: config.WEBHOOK_RELAY_MAX_BACKOFF_SECONDS * 1000,
    }),
  );
  deps.logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'webhook relay running');
  return running;
}
