import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Pool } from 'pg';
import { openPool } from '../../src/db/database';
import { openOrm } from '../../src/db/orm';
import { createDb, type Db } from '../../src/db/sql';

export interface TestDatabase {
  pool: Pool;
  /** The app's data-access interface on this database (src/db/sql.ts). */
  sql: Db;
  name: string;
  /** The migrator on this database (migration tests): each call opens it, runs, and closes it. */
  migrations: { up(to?: string): Promise<void>; down(to: string): Promise<void> };
  /** Runs a SQL query against this test file's database. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(poolMax = 20): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name} template activation_sys_template`));
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${name}`;
  const pool = openPool(url.toString(), poolMax);
  const withMigrator = async (run: (migrator: Awaited<ReturnType<typeof openOrm>>['migrator']) => Promise<unknown>) => {
    const orm = await openOrm(url.toString(), 1);
    try {
      await run(orm.migrator);
    } finally {
      await orm.close();
    }
  };
  return {
    pool,
    sql: createDb(pool),
    name,
    migrations: {
      up: (to) => withMigrator((m) => m.up(to ? { to } : undefined)),
      down: (to) => withMigrator((m) => m.down({ to })),
    },
    async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
      const { rows } = await pool.query<Record<string, unknown>>(sql, params);
      // The caller names the row shape it selected (pg types rows loosely anyway).
      return rows as T[];
    },
    async drop() {
      await pool.end();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * Until a session of this database waits on a lock running a statement whose text matches every
 * `like` pattern: the request under test has met the row or key a test's own transaction holds.
 */
export async function untilWaitingOnLock(db: TestDatabase, ...patterns: string[]): Promise<void> {
  const matches = patterns.map((_, i) => `and query like $${i + 1}`).join(' ');
  for (let i = 0; i < 500; i++) {
    const waiting = await db.query(
      `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' ${matches}`,
      patterns,
    );
    if (waiting.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no statement like ${patterns.join(' and ')} waited on a lock`);
}
