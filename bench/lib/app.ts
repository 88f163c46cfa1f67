/** The app as every bench server builds it: the same configuration, logs serialized and dropped, a clean stop. */
import type { Express } from 'express';
import { loadConfig, type Config } from '../../src/config';
import type { Pool } from 'pg';
import { openPool } from '../../src/db/database';
import { createDb, type Db } from '../../src/db/sql';
import { asyncDestination, createLogger } from '../../src/http/logger';

/** What a server child is built from: the configuration and the bench database (set by the parent). */
export interface ServerContext {
  config: Config;
  databaseUrl: string;
}

export function serverContext(): ServerContext {
  return { config: benchConfig(), databaseUrl: process.env.BENCH_DATABASE_URL ?? '' };
}

export function benchConfig(): Config {
  // Answer checks against the document are a test and development aid, off in production: measure without them.
  // The rate limit is out of the way. PORTAL_CACHE_MS, when set, reaches the app (0: every portal read misses its cache).
  const cache = process.env.PORTAL_CACHE_MS;
  return loadConfig({
    NODE_ENV: 'test',
    RATE_LIMIT_MAX: '100000000',
    LOG_LEVEL: 'info',
    CONTRACT_CHECKS: 'false',
    ...(cache ? { PORTAL_CACHE_MS: cache } : {}),
  });
}

/** Logs are fully serialized (so their cost counts) and then dropped. */
export function discardLogger(config: Config) {
  return createLogger(config.LOG_LEVEL, { write() {} });
}

/** Logs written as the API writes them to its standard output (src/http/logger.ts), to /dev/null: the write's cost counts too. */
export function writtenLogger(config: Config) {
  return createLogger(config.LOG_LEVEL, asyncDestination('/dev/null'));
}

export function openDb(ctx: ServerContext): Promise<{ db: Db; pool: Pool }> {
  const pool = openPool(ctx.databaseUrl, ctx.config.DATABASE_POOL_MAX);
  return Promise.resolve({ db: createDb(pool), pool });
}

/**
 * Stops what the app runs in the background (rate-limit sync, the session cache's
 * LISTEN connection) before the pool closes: a pool with a connection still
 * checked out never ends, and the child would be killed after 10 s (losing its
 * --cpu-prof profile).
 */
export async function closeApp(app: Express, pool: Pool): Promise<void> {
  await (app.locals.stop as (() => Promise<void>) | undefined)?.().catch(() => undefined);
  await pool.end();
}
