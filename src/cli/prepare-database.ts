/**
 * Used by the local stack: starts the embedded PostgreSQL (unless DATABASE_URL
 * is set), runs the committed migrations, seeds the demo catalog, prints the
 * database URL on stdout as its last line and keeps Postgres running until stopped.
 */
import { loadConfig } from '../config';
import { seedDemoCatalog } from '../catalog/demo-seed';
import { openDatabase } from '../db/database';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config, { migrate: true });
  await db.orm.em.fork().transactional((em) => seedDemoCatalog(em));
  await db.orm.close();
  console.log(`DATABASE_URL=${db.url}`);
  const stop = async () => {
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (config.DATABASE_URL) await stop();
  setInterval(() => undefined, 1 << 30);
}

main().catch((err) => {
  console.error(err?.message ?? err);
  process.exit(1);
});
