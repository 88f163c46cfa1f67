import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { traceStatement } from './statement-span';

/**
 * The one way to Postgres (docs/architecture.md, "Data access"). Repositories and reads modules take
 * an `Sql`: the pool for a single statement, or the transaction a service opened with
 * `db.transaction` and handed down. Every statement uses `$n` placeholders and binds its values
 * (arrays bind as Postgres arrays). A `query(name, text)` is prepared once per connection by name.
 */

/** A statement with a name: pg prepares it once per connection and reuses the plan. */
export interface Query {
  readonly name: string;
  readonly text: string;
}

/** Names a statement. Names are unique per text: two different texts must not share one. */
export function query(name: string, text: string): Query {
  return { name, text };
}

type Statement = Query | string;

/** What a repository runs its statements on: the pool, or an open transaction. */
export interface Sql {
  /** Every row the statement returns. */
  rows<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  one<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement for its effect; answers the number of rows it touched. */
  exec(statement: Statement, values?: readonly unknown[]): Promise<number>;
}

/** An open transaction: an `Sql` bound to one connection until the callback settles. */
export interface Tx extends Sql {
  readonly inTransaction: true;
}

export type Isolation = 'read committed' | 'repeatable read' | 'serializable';

export interface TransactionOptions {
  isolation?: Isolation;
  readOnly?: boolean;
}

/** The database: statements on the pool, and transactions. */
export interface Db extends Sql {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** The pool itself, for what is not a statement: LISTEN on a dedicated client, the rate limiter's store. */
  readonly pool: Pool;
}

type Runner = Pick<Pool | PoolClient, 'query'>;

function sqlOn(runner: Runner): Sql {
  const run = async <T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]) => {
    const config = typeof statement === 'string' ? { text: statement } : statement;
    // A span of its own inside a kept trace (src/db/statement-span.ts); otherwise nothing.
    return traceStatement(config, () => runner.query<T>({ ...config, values: values as unknown[] | undefined }));
  };
  return {
    async rows<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]) {
      return (await run<T>(statement, values)).rows;
    },
    async one<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]): Promise<T | undefined> {
      const { rows } = await run<T>(statement, values);
      return rows[0];
    },
    async exec(statement, values) {
      return (await run(statement, values)).rowCount ?? 0;
    },
  };
}

function beginStatement(options: TransactionOptions): string {
  const modes = [options.isolation ? `isolation level ${options.isolation}` : undefined, options.readOnly ? 'read only' : undefined].filter(
    Boolean,
  );
  return modes.length > 0 ? `begin ${modes.join(', ')}` : 'begin';
}

export function createDb(pool: Pool): Db {
  return {
    ...sqlOn(pool),
    pool,
    async transaction(work, options = {}) {
      const client = await pool.connect();
      // A connection the server ends mid-transaction fails the statement in flight; the client also
      // emits the error, which must not go unheard (it would take the process down).
      const onLost = () => undefined;
      client.on('error', onLost);
      let released = false;
      try {
        await client.query(beginStatement(options));
        const result = await work({ ...sqlOn(client), inTransaction: true });
        await client.query('commit');
        return result;
      } catch (err) {
        // A connection that cannot even roll back is broken: it leaves the pool instead of going back.
        await client.query('rollback').catch((rollbackErr: unknown) => {
          released = true;
          client.release(rollbackErr instanceof Error ? rollbackErr : true);
        });
        throw err;
      } finally {
        client.off('error', onLost);
        if (!released) client.release();
      }
    },
  };
}

/** Postgres refused a row for a unique index (optionally: this one). Works on pg's errors and on the ORM's wrapped ones. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const code = e?.code ?? e?.cause?.code;
  const name = e?.constraint ?? e?.cause?.constraint;
  return code === '23505' && (!constraint || name === constraint);
}

/** SQLSTATEs of a server that is away or refusing connections: class 08, shutting down, not accepting yet, full. */
const UNAVAILABLE_STATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// pg's own errors for a connection that ended or never came (no code on them).
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Cannot use a pool after calling end/;

/**
 * Postgres was away (down, restarting, unreachable, no connection free in time), not a statement that
 * failed: the API answers SERVICE_UNAVAILABLE 503 with Retry-After, and nothing was committed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth += 1) {
    if (typeof e.code === 'string' && (UNAVAILABLE_STATES.has(e.code) || UNAVAILABLE_SOCKET_CODES.has(e.code))) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    e = e.cause as typeof e;
  }
  return false;
}
