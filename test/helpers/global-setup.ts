import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { migrate, openOrm } from '../../src/db/orm';
import { freePort } from './processes';

export const TEMPLATE_DB = 'activation_sys_template';

/**
 * One embedded PostgreSQL per test run; the committed migrations build a
 * template database, and every test file clones its own database from it.
 * With DATABASE_URL set, that server is used instead.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    process.env.TEST_DATABASE_ADMIN_URL = process.env.DATABASE_URL;
  } else {
    const db = await startTestPostgres();
    (globalThis as { __TEST_PG__?: unknown }).__TEST_PG__ = db;
    process.env.TEST_DATABASE_ADMIN_URL = db.url('postgres');
  }
  const { Client } = await import('pg');
  const admin = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${TEMPLATE_DB}`;
  const orm = await openOrm(url.toString(), 2);
  await migrate(orm);
  await orm.close();
}

/**
 * A fresh cluster per run, so concurrent runs (a developer and CI) never share one, on a port the OS
 * says is free; another process may still take it before PostgreSQL binds, so a failed start is tried again.
 */
async function startTestPostgres() {
  const dir = path.resolve(`.data/test-pg/run-${process.pid}`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEmbeddedPostgres({ dir, port: await freePort(), persistent: false });
    } catch (err) {
      if (attempt >= 3) throw err;
      console.warn(`test PostgreSQL did not start (attempt ${attempt}): ${String(err)}; trying another port`);
    }
  }
}
