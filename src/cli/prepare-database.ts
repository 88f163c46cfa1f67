/**
 * Used by the local stack: starts the embedded PostgreSQL (unless DATABASE_URL
 * is set), runs the committed migrations, seeds the demo catalog (and, with the mock store
 * providers, the store's stand-ins: src/store/stand-ins.ts), prints the
 * database URL on stdout as its last line and keeps Postgres running until stopped.
 */
import { loadConfig } from '../config';
import { seedDemoCatalog } from '../catalog/demo-seed';
import { openDatabase } from '../db/database';
import { messageOf } from '../lib/errors';
import { seedStoreStandIns } from '../store/stand-ins';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config, { schema: 'migrate' });
  await db.db.transaction((tx) => seedDemoCatalog(tx));
  if (config.STORE_PROVIDER === 'mock' && config.NODE_ENV !== 'production') await db.db.transaction((tx) => seedStoreStandIns(tx));
  console.log(`DATABASE_URL=${db.url}`);
  const stop = async () => {
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  const onSignal = () => void stop().catch(fail);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (config.DATABASE_URL) await stop();
  setInterval(() => undefined, 1 << 30);
}

function fail(err: unknown): void {
  console.error(messageOf(err));
  process.exit(1);
}

main().catch(fail);
