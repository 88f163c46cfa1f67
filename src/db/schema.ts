import { Client, type Pool } from 'pg';
import type { Logger } from 'pino';
import { migrationsList } from './migrations';
import { migrate, openOrm } from './orm';
import type { PostgresConnection } from './tls';

/**
 * The session-level advisory lock every migration run holds (any constant, the same in every release):
 * two `npm run migrate` at once, or a migrate next to a development API migrating at start, take turns,
 * and the second finds nothing left to apply.
 */
export const MIGRATION_LOCK_KEY = '7244331901';

/**
 * Applies the committed migrations (src/db/migrations) under the advisory lock, on a connection of its own
 * that holds the lock while MikroORM's migrator runs; returns the names applied by this call.
 */
export async function runMigrations(target: PostgresConnection): Promise<string[]> {
  const lock = new Client({ connectionString: target.connectionString, ssl: target.ssl });
  // A connection dropped while waiting would otherwise be an unhandled 'error' event.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const orm = await openOrm(target, 1);
    try {
      return (await migrate(orm)).map((m) => m.name);
    } finally {
      await orm.close();
    }
  } finally {
    // Ending the session releases the lock as well; unlocking first frees it even if end() is slow.
    await lock.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}

/** The committed migrations the database has not applied (all of them before the first migrate). */
export async function pendingMigrations(pool: Pool): Promise<string[]> {
  const names = migrationsList.map((m) => m.name);
  try {
    const { rows } = await pool.query<{ name: string }>('select name from mikro_orm_migrations');
    const applied = new Set(rows.map((row) => row.name.replace(/\.(js|ts)$/, '')));
    return names.filter((name) => !applied.has(name));
  } catch (err) {
    // undefined_table: nothing migrated yet.
    if ((err as { code?: string }).code === '42P01') return names;
    throw err;
  }
}

/**
 * Production: the API and the worker do not migrate (several replicas would race, and a rolling deploy
 * must not change the schema under the old release); they wait until `npm run migrate` (compose's
 * `migrate` service) has applied every migration they were built with, while Postgres may still be
 * starting. Newer migrations than ours are fine: they belong to the next release. Gives up after `timeoutMs`.
 */
export async function waitForSchema(
  pool: Pool,
  { timeoutMs, logger, pollMs = 1_000 }: { timeoutMs: number; logger?: Pick<Logger, 'info' | 'warn'>; pollMs?: number },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastLoggedAt = 0;
  for (;;) {
    let pending: string[] | undefined;
    let error: unknown;
    try {
      pending = await pendingMigrations(pool);
    } catch (err) {
      error = err;
    }
    if (pending?.length === 0) {
      if (lastLoggedAt > 0) logger?.info('database schema is current');
      return;
    }
    if (Date.now() + pollMs > deadline) {
      const seconds = Math.round(timeoutMs / 1000);
      if (pending) throw new Error(`the database schema is ${pending.length} migrations behind after ${seconds} s: run npm run migrate`);
      throw new Error(`the database did not answer within ${seconds} s`, { cause: error });
    }
    if (Date.now() - lastLoggedAt >= 10_000) {
      lastLoggedAt = Date.now();
      if (pending) logger?.info({ pending: pending.length, next: pending[0] }, 'waiting for the database schema (npm run migrate)');
      else logger?.warn({ err: error }, 'database not reachable yet, retrying');
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
