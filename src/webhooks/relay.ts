// The relay: hands inbox rows (./inbox.ts) to the payment settlement workflows. It runs in the
// worker process (worker/main.ts), independently of Temporal's health: a loop that claims rows
// with `for update skip locked`, signals each payment's workflow (signal-with-start), and marks
// the rows in the same transaction. See createInboxRelay for the guarantees.
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { PaymentStatus } from '../entities/payment';
import { connectTemporal } from '../temporal/connection';
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

/** What one claim did. */
export interface RelayBatch {
  claimed: number;
  delivered: number;
  /** Rows whose payment they can no longer change (settled meanwhile): marked without a signal. */
  skipped: number;
  failed: number;
  /** With nothing claimed: in how many milliseconds the first waiting row is due (null: none waits). */
  nextDueInMs: number | null;
}

export interface InboxRelay {
  /** One claim-signal-mark transaction. */
  relayOnce(): Promise<RelayBatch>;
  /** Claims until nothing is due (tests, and tools); returns the sums. */
  drain(): Promise<Omit<RelayBatch, 'nextDueInMs'>>;
  /** Runs the loop: LISTEN for new rows, poll as a safety net, back off while deliveries fail. */
  start(): void;
  /** Ends the loop after the batch in flight has committed, and stops listening. */
  stop(): Promise<void>;
}

interface ClaimedRow {
  id: string;
  event_id: string;
  payment_id: string;
  type: ProcessorEvent['type'];
  failure_message: string | null;
  payment_status: PaymentStatus;
}

// Time is the database's (now()), never a process clock: the API that wrote a row and the relay
// that claims it may run on different hosts.
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

const DEFAULT_BASE_BACKOFF_MS = 500;
const LISTEN_RETRY_MS = 1_000;
const WARN_EVERY_MS = 60_000;

/** Can this event still change the payment? The route's own rule (DELIVERABLE), read again at hand-over time: the payment may have settled since. */
const stillMatters = (row: ClaimedRow): boolean => DELIVERABLE[row.type].includes(row.payment_status);

function eventOf(row: ClaimedRow): ProcessorEvent {
  return { eventId: row.event_id, type: row.type, ...(row.failure_message ? { failureMessage: row.failure_message } : {}) };
}

/** The failure as an operator needs it (the error's class and message, bounded); never a payload. */
function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 500);
}

/**
 * At least once, in order per payment, across restarts of the API, the worker and Temporal:
 * a row is marked `delivered` in the transaction that claimed it, after its signal was taken,
 * so a crash before the commit leaves it pending and it is signalled again (the workflow drops
 * event ids it has seen). A payment's next row is claimed only once the one before it is done.
 * While deliveries fail (Temporal away) the loop waits 0.5 s, 1 s, … up to maxBackoffMs and
 * ignores notifications; each failed row also waits its own backoff, so one row Temporal keeps
 * refusing holds back its own payment only. The first success after failures makes every
 * waiting row due at once.
 */
export function createInboxRelay(opts: InboxRelayOptions): InboxRelay {
  const { logger } = opts;
  const baseBackoffMs = opts.baseBackoffMs ?? DEFAULT_BASE_BACKOFF_MS;
  let failing = false;
  let failingSince = 0;
  let lastWarnAt = 0;

  async function relayOnce(): Promise<RelayBatch> {
    const client = await opts.pool.connect();
    let broken: Error | undefined;
    // The connection may die while signals are in flight (a database restart): the next query fails.
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    try {
      await client.query('begin');
      const batch = await claimAndDeliver(client);
      await client.query('commit');
      return batch;
    } catch (err) {
      broken ??= err instanceof Error ? err : new Error(String(err));
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async function claimAndDeliver(client: PoolClient): Promise<RelayBatch> {
    const { rows } = await client.query<ClaimedRow>({ name: 'webhook-inbox-claim', text: CLAIM, values: [opts.batchSize] });
    if (rows.length === 0) {
      const { rows: due } = await client.query<{ due_in_ms: number | null }>({
        name: 'webhook-inbox-next-due',
        text: NEXT_DUE,
      });
      return { claimed: 0, delivered: 0, skipped: 0, failed: 0, nextDueInMs: due[0]?.due_in_ms ?? null };
    }
    const skipped = rows.filter((r) => !stillMatters(r)).map((r) => r.id);
    const live = rows.filter(stillMatters);
    // Distinct payments: their signals may go in parallel without reordering any payment.
    const errors = await Promise.all(
      live.map((row) =>
        opts.workflows.deliverEvent(row.payment_id, eventOf(row)).then(
          () => null,
          (err: unknown) => errorText(err),
        ),
      ),
    );
    const delivered = live.filter((_, i) => errors[i] === null).map((r) => r.id);
    const failed = live.flatMap((r, i) => (errors[i] === null ? [] : [{ id: r.id, error: errors[i] }]));
    if (delivered.length) await client.query({ name: 'webhook-inbox-delivered', text: DELIVERED, values: [delivered] });
    if (skipped.length) await client.query({ name: 'webhook-inbox-skipped', text: SKIPPED, values: [skipped] });
    if (failed.length) {
      await client.query({
        name: 'webhook-inbox-failed',
        text: FAILED,
        values: [failed.map((f) => f.id), failed.map((f) => f.error), opts.maxBackoffMs / 1000, baseBackoffMs / 1000],
      });
    }
    await noteHealth(client, delivered.length, failed);
    return { claimed: rows.length, delivered: delivered.length, skipped: skipped.length, failed: failed.length, nextDueInMs: null };
  }

  /** Logs the start of a failing streak (then once a minute) and its end; on recovery makes every waiting row due. */
  async function noteHealth(client: PoolClient, delivered: number, failed: Array<{ id: string; error: string }>) {
    const at = Date.now();
    if (failed.length > 0 && delivered === 0) {
      if (!failing) failingSince = at;
      failing = true;
      if (at - lastWarnAt >= WARN_EVERY_MS) {
        lastWarnAt = at;
        logger.warn({ failed: failed.length, error: failed[0].error }, 'webhook relay: settlement workflows cannot take events; retrying');
      }
      return;
    }
    if (failed.length > 0) {
      logger.warn({ failed: failed.length, delivered, error: failed[0].error }, 'webhook relay: some events were not taken; retrying');
    }
    if (failing && delivered > 0) {
      failing = false;
      lastWarnAt = 0;
      const { rowCount } = await client.query({ name: 'webhook-inbox-recovered', text: RECOVERED });
      logger.info({ afterMs: at - failingSince, waiting: rowCount }, 'webhook relay: deliveries succeed again');
    }
  }

  // --- The loop ---------------------------------------------------------------------------------

  let stopped = false;
  let loop: Promise<void> | undefined;
  let wake = false;
  let interrupt: (() => void) | undefined;
  let listener: PoolClient | undefined;
  let listenRetry: NodeJS.Timeout | undefined;

  function notified() {
    wake = true;
    interrupt?.();
  }

  /** Waits `ms`, cut short by stop() and, when `byNotification`, by a new row. */
  function wait(ms: number, byNotification: boolean): Promise<void> {
    if (stopped || (byNotification && wake)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      interrupt = () => {
        if (stopped || byNotification) done();
      };
    });
  }

  async function run(): Promise<void> {
    let failedRounds = 0;
    while (!stopped) {
      wake = false;
      let batch: RelayBatch | undefined;
      try {
        batch = await relayOnce();
      } catch (err) {
        logger.error({ err }, 'webhook relay: the inbox could not be read or marked; retrying');
      }
      if (stopped) break;
      if (batch && batch.delivered + batch.skipped > 0) {
        failedRounds = 0;
        continue; // the payments just served may have their next row waiting
      }
      if (!batch || batch.claimed > 0) {
        failedRounds += 1;
        await wait(Math.min(opts.maxBackoffMs, baseBackoffMs * 2 ** (failedRounds - 1)), false);
        continue;
      }
      failedRounds = 0;
      const untilDue = batch.nextDueInMs ?? Infinity;
      // Due already means another relay holds those rows: its commit lets it (or a notification) go on.
      await wait(untilDue > 0 ? Math.min(untilDue, opts.pollIntervalMs) : opts.pollIntervalMs, true);
    }
  }

  async function listen(): Promise<void> {
    listenRetry = undefined;
    if (stopped) return;
    let client: PoolClient | undefined;
    try {
      client = await opts.pool.connect();
      const mine = client;
      listener = mine;
      mine.on('notification', (msg) => msg.channel === INBOX_CHANNEL && notified());
      mine.on('error', (err) => lost(mine, err));
      mine.on('end', () => lost(mine));
      await mine.query(`LISTEN ${INBOX_CHANNEL}`);
      notified(); // rows may have come while nobody listened
    } catch (err) {
      lost(client, err);
    }
  }

  function lost(client: PoolClient | undefined, err?: unknown) {
    if (client && listener !== client) return; // already handled
    listener = undefined;
    if (err && !stopped) logger.warn({ err }, 'webhook relay: lost its LISTEN connection; polling until it is back');
    client?.release(true);
    if (!stopped && !listenRetry) listenRetry = setTimeout(() => void listen(), LISTEN_RETRY_MS);
  }

  return {
    relayOnce,
    async drain() {
      const sum = { claimed: 0, delivered: 0, skipped: 0, failed: 0 };
      for (;;) {
        const batch = await relayOnce();
        if (batch.claimed === 0) return sum;
        sum.claimed += batch.claimed;
        sum.delivered += batch.delivered;
        sum.skipped += batch.skipped;
        sum.failed += batch.failed;
      }
    },
    start() {
      if (loop) return;
      void listen();
      loop = run();
    },
    async stop() {
      stopped = true;
      interrupt?.();
      if (listenRetry) clearTimeout(listenRetry);
      await loop;
      const client = listener;
      listener = undefined;
      if (client) {
        await client.query(`UNLISTEN ${INBOX_CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
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

/**
 * The relay as the worker runs it: its own lazy Temporal client (with the payload codec), so it
 * starts, and keeps its rows, whatever state Temporal is in. Stop it before closing the pool.
 */
export function startInboxRelay(config: InboxRelayConfig, deps: { pool: Pool; logger: Logger }): { stop(): Promise<void> } {
  const temporal = connectTemporal(config);
  const relay = createInboxRelay({
    pool: deps.pool,
    workflows: createPaymentWorkflows(temporal.client, config),
    logger: deps.logger.child({ component: 'webhook-relay' }),
    batchSize: config.WEBHOOK_RELAY_BATCH_SIZE,
    pollIntervalMs: config.WEBHOOK_RELAY_POLL_SECONDS * 1000,
    maxBackoffMs: config.WEBHOOK_RELAY_MAX_BACKOFF_SECONDS * 1000,
  });
  relay.start();
  deps.logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'webhook relay running');
  return {
    async stop() {
      await relay.stop();
      await temporal.connection.close().catch(() => undefined);
    },
  };
}
