import { query, type Sql } from '../db/sql';

const PING = query('health.ping', 'select 1');

/** Resolves when Postgres answers a statement; rejects otherwise. */
export async function pingDatabase(sql: Sql): Promise<void> {
  await sql.exec(PING);
}
