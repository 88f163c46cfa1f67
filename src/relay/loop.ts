// The relay loop every Postgres-to-outside hand-over shares (the webhook inbox to the settlement
// workflows, pending workflow starts and signals to Temporal, OTP messages to their provider): a transaction
// claims due rows with `for update skip locked`, hands each to the outside, and marks them before
// it commits; a LISTEN connection (src/db/listener.ts) wakes it on new rows, a poll is the safety net; while the outside
// refuses, the loop and each refused row back off. A queue (RelayQueue) says what its rows are,
// how one is handed over and how rows are marked; this module owns the rest.
import { createListener, type Listener } from '../db/listener';
import type { Logger } from 'pino';
import type { Db, Sql } from '../db/sql';

/** Each failed row waits base × 2^attempts, capped, before it is claimed again. */
export interface RelayBackoff {
  baseMs: number;
  maxMs: number;
}

export interface RelayFailure<Row> {
  row: Row;
  /** The failure as an operator needs it (class and message, bounded); never a payload. */
  error: string;
}

/**
 * One table the relay drains. Every method but handle runs in the claiming transaction (`tx`);
 * handle is the outside call. Time is the database's (now()), never a process clock: the process
 * that wrote a row and the relay that claims it may run on different hosts.
 */
export interface RelayQueue<Row, Outcome extends string> {
  /** NOTIFY channel of new rows (a trigger on the table). */
  channel: string;
  /** Every outcome handle may answer; the counts of a batch are keyed by them. */
  outcomes: readonly Outcome[];
  /** The outcome that proves the outside answers again (ends a failing streak); others (e.g. skipped) do not. */
  reached: Outcome;
  /** Locks and returns at most `limit` due rows (`for update skip locked`). */
  claim(tx: Sql, limit: number): Promise<Row[]>;
  /** With nothing claimed: in how many milliseconds the first waiting row is due (null: none waits). */
  nextDueInMs(tx: Sql): Promise<number | null>;
  /** Hands one row over. Throwing leaves the row pending, retried after its backoff. */
  handle(row: Row): Promise<Outcome>;
  mark(tx: Sql, outcome: Outcome, rows: Row[]): Promise<void>;
  markFailed(tx: Sql, failures: RelayFailure<Row>[], backoff: RelayBackoff): Promise<void>;
  /** The outside answers again: what waited on it is due now, not after its own backoff. Returns how many rows. */
  makeWaitingDue(tx: Sql): Promise<number>;
}

/** Log lines, each prefixed with the relay's name: docs/runbook.md quotes them. */
export interface RelayTexts {
  /** e.g. `webhook relay`. */
  name: string;
  /** Every row of a batch refused, e.g. `settlement workflows cannot take events`. */
  failing: string;
  /** Some rows of a batch refused, e.g. `some events were not taken`. */
  partial: string;
  /** The first success after a failing streak, e.g. `deliveries succeed again`. */
  recovered: string;
  /** The claiming transaction failed, e.g. `the inbox could not be read or marked`. */
  unreadable: string;
}

export interface RelayOptions<Row, Outcome extends string> {
  /** Claims run in its transactions; its pool gives the LISTEN connection. */
  db: Db;
  queue: RelayQueue<Row, Outcome>;
  texts: RelayTexts;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Rows claimed and handed over together. */
  batchSize: number;
  /** Longest idle wait without a notification (a lost NOTIFY, a listener reconnecting). */
  pollIntervalMs: number;
  /** Cap of the wait after failed hand-overs, for the relay and for each row. */
  maxBackoffMs: number;
  /** The first wait after a failed hand-over, doubled per failure (default 0.5 s). */
  baseBackoffMs?: number;
}

/** What one claim did: rows per outcome, plus the claimed and failed counts. */
export type RelayBatch<Outcome extends string> = { claimed: number; failed: number; nextDueInMs: number | null } & Record<Outcome, number>;
export type RelaySums<Outcome extends string> = Omit<RelayBatch<Outcome>, 'nextDueInMs'>;

export interface Relay<Outcome extends string> {
  /** One claim-handle-mark transaction. */
  relayOnce(): Promise<RelayBatch<Outcome>>;
  /** Claims until nothing is due (tests, and tools); returns the sums. */
  drain(): Promise<RelaySums<Outcome>>;
  /** Runs the loop: LISTEN for new rows, poll as a safety net, back off while hand-overs fail. */
  start(): void;
  /** Ends the loop after the batch in flight has committed, and stops listening. */
  stop(): Promise<void>;
}

const DEFAULT_BASE_BACKOFF_MS = 500;
const WARN_EVERY_MS = 60_000;

/** The failure as an operator needs it (the error's class and message, bounded); never a payload. */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 500);
}

/**
 * At least once, across restarts of the writer, the relay and the outside: a row is marked in the
 * transaction that claimed it, after the outside took it, so a crash before the commit leaves it
 * pending and it is handed over again (handlers must be idempotent). While hand-overs fail the loop
 * waits 0.5 s, 1 s, … up to maxBackoffMs and ignores notifications; each failed row also waits its
 * own backoff, so one row the outside keeps refusing holds back only itself. The first success after
 * failures makes every waiting row due at once.
 */
export function createRelay<Row, Outcome extends string>(opts: RelayOptions<Row, Outcome>): Relay<Outcome> {
  const { queue, texts, logger } = opts;
  const backoff: RelayBackoff = { baseMs: opts.baseBackoffMs ?? DEFAULT_BASE_BACKOFF_MS, maxMs: opts.maxBackoffMs };
  let failing = false;
  let failingSince = 0;
  let lastWarnAt = 0;

  const emptyBatch = (nextDueInMs: number | null): RelayBatch<Outcome> => {
    const counts = Object.fromEntries(queue.outcomes.map((o) => [o, 0])) as Record<Outcome, number>;
    return { ...counts, claimed: 0, failed: 0, nextDueInMs };
  };

  // The connection may die while hand-overs are in flight (a database restart): the next statement
  // fails, the transaction cannot even roll back, and the connection leaves the pool; the rows stay pending.
  function relayOnce(): Promise<RelayBatch<Outcome>> {
    return opts.db.transaction((tx) => claimAndHandle(tx));
  }

  async function claimAndHandle(tx: Sql): Promise<RelayBatch<Outcome>> {
    const rows = await queue.claim(tx, opts.batchSize);
    if (rows.length === 0) return emptyBatch(await queue.nextDueInMs(tx));
    // Claimed rows never depend on each other (a queue that keeps an order claims one row per key): in parallel.
    const results = await Promise.all(
      rows.map((row) =>
        queue.handle(row).then(
          (outcome) => ({ row, outcome }),
          (err: unknown) => ({ row, error: errorText(err) }),
        ),
      ),
    );
    const batch = emptyBatch(null);
    batch.claimed = rows.length;
    const failures: RelayFailure<Row>[] = [];
    const byOutcome = new Map<Outcome, Row[]>();
    for (const result of results) {
      if ('error' in result) failures.push(result);
      else byOutcome.set(result.outcome, [...(byOutcome.get(result.outcome) ?? []), result.row]);
    }
    for (const [outcome, marked] of byOutcome) {
      await queue.mark(tx, outcome, marked);
      (batch as Record<Outcome, number>)[outcome] = marked.length;
    }
    if (failures.length) await queue.markFailed(tx, failures, backoff);
    batch.failed = failures.length;
    await noteHealth(tx, batch[queue.reached], failures);
    return batch;
  }

  /** Logs the start of a failing streak (then once a minute) and its end; on recovery makes every waiting row due. */
  async function noteHealth(tx: Sql, reached: number, failures: RelayFailure<Row>[]) {
    const at = Date.now();
    if (failures.length > 0 && reached === 0) {
      if (!failing) failingSince = at;
      failing = true;
      if (at - lastWarnAt >= WARN_EVERY_MS) {
        lastWarnAt = at;
        logger.warn({ failed: failures.length, error: failures[0].error }, `${texts.name}: ${texts.failing}; retrying`);
      }
      return;
    }
    if (failures.length > 0) {
      logger.warn({ failed: failures.length, reached, error: failures[0].error }, `${texts.name}: ${texts.partial}; retrying`);
    }
    if (failing && reached > 0) {
      failing = false;
      lastWarnAt = 0;
      const waiting = await queue.makeWaitingDue(tx);
      logger.info({ afterMs: at - failingSince, waiting }, `${texts.name}: ${texts.recovered}`);
    }
  }

  // --- The loop ---------------------------------------------------------------------------------

  let stopped = false;
  let loop: Promise<void> | undefined;
  let wake = false;
  let interrupt: (() => void) | undefined;
  let listener: Listener | undefined;

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
      let batch: RelayBatch<Outcome> | undefined;
      try {
        batch = await relayOnce();
      } catch (err) {
        logger.error({ err }, `${texts.name}: ${texts.unreadable}; retrying`);
      }
      if (stopped) break;
      if (batch && batch.claimed > batch.failed) {
        failedRounds = 0;
        continue; // more may be due (a queue that keeps an order has the next row of a key waiting)
      }
      if (!batch || batch.claimed > 0) {
        failedRounds += 1;
        await wait(Math.min(backoff.maxMs, backoff.baseMs * 2 ** (failedRounds - 1)), false);
        continue;
      }
      failedRounds = 0;
      const untilDue = batch.nextDueInMs ?? Infinity;
      // Due already means another relay holds those rows: its commit lets it (or a notification) go on.
      await wait(untilDue > 0 ? Math.min(untilDue, opts.pollIntervalMs) : opts.pollIntervalMs, true);
    }
  }

  /** New rows wake the loop; a silent or lost connection leaves the poll in charge until it is back. */
  function listen(): Listener {
    return createListener({
      pool: opts.db.pool,
      channel: queue.channel,
      onNotification: notified,
      onListening: notified, // rows may have come while nobody listened
      onLost(err) {
        if (err) logger.warn({ err }, `${texts.name}: lost its LISTEN connection; polling until it is back`);
      },
    });
  }

  return {
    relayOnce,
    async drain() {
      const sums: Record<string, number> = { claimed: 0, failed: 0, ...Object.fromEntries(queue.outcomes.map((o) => [o, 0])) };
      for (;;) {
        const batch: Record<string, number | null> = await relayOnce();
        if (batch.claimed === 0) return sums as RelaySums<Outcome>;
        for (const key of Object.keys(sums)) sums[key] += batch[key] ?? 0;
      }
    },
    start() {
      if (loop) return;
      listener = listen();
      loop = run();
    },
    async stop() {
      stopped = true;
      interrupt?.();
      await loop;
      await listener?.stop();
      listener = undefined;
    },
  };
}
