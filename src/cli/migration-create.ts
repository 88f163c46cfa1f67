/**
 * Writes a new migration from the difference between the entities and the
 * committed schema snapshot, against a throw-away embedded PostgreSQL.
 * Usage: npm run migration:create -- <name>
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../db/embedded';
import { migrate, openOrm } from '../db/orm';

async function main(): Promise<void> {
  const name = process.argv[2];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'activation-sys-migrate-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: 54400 + Math.floor(Math.random() * 500), persistent: false });
  try {
    await db.createDatabase('migrate');
    const orm = await openOrm(db.url('migrate'));
    await migrate(orm);
    const result = await orm.migrator.create(path.resolve('src/db/migrations'), false, false, name);
    console.log(result.fileName ? `wrote ${result.fileName}; add it to src/db/migrations/index.ts` : 'no schema changes');
    await orm.close();
  } finally {
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
