/**
 * Issue 22: "`npm run migrate` with an advisory lock; in production the API and worker wait for the schema
 * instead of migrating". Done when: "A migrate test: two migrate commands at once apply each migration once."
 *
 * The compiled commands as real processes (`npm run migrate` runs dist/src/cli/migrate.js) on an empty
 * database of their own.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrationsList } from '../../src/db/migrations';
import { productionEnv } from '../helpers/production-env';
import { compiledProcesses, exited, freePort } from '../helpers/processes';
import { DIST } from '../helpers/stack';

jest.setTimeout(120_000);

const processes = compiledProcesses(DIST);
const ALL = migrationsList.map((m) => m.name);

async function admin<T>(run: (client: Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

let databases: string[] = [];
/** An empty database (no template): nothing migrated yet. */
async function emptyDatabase(): Promise<{ name: string; url: string }> {
  const name = `m_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  databases.push(name);
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** Each row of the migrations table, in the order applied (none when the table does not exist). */
const applied = (database: string) =>
  admin(async (c) => {
    const exists = await c.query(`select to_regclass('mikro_orm_migrations') as t`);
    if (!(exists.rows[0] as { t: string | null }).t) return [];
    return (await c.query<{ name: string }>('select name from mikro_orm_migrations order by id')).rows.map((r) => r.name);
  }, database);

/** Runs `script` to its end; its output, parsed where it is a JSON log line. */
async function run(script: string, env: NodeJS.ProcessEnv) {
  let output = '';
  const child = processes.start(script, { PATH: process.env.PATH, ...env });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const code = await exited(child);
  return { code, output, lines: logLines(output) };
}

function logLines(output: string): Array<{ msg?: string; applied?: string[] }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; applied?: string[] });
}

afterAll(async () => {
  await processes.stopAll();
  for (const name of databases) await admin((c) => c.query(`drop database if exists ${name} with (force)`));
  databases = [];
});

describe('npm run migrate', () => {
  it('two migrate commands at once apply each migration once', async () => {
    const { name, url } = await emptyDatabase();
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: url };
    const [first, second] = await Promise.all([run('src/cli/migrate.js', env), run('src/cli/migrate.js', env)]);
    expect([first.code, second.code]).toEqual([0, 0]);
    // Every migration applied once, in order.
    expect(await applied(name)).toEqual(ALL);
    // One command applied them all; the other waited for its lock, then found nothing left to do.
    const reported = [first, second].map((r) => r.lines.find((l) => l.msg === 'migrations applied')?.applied ?? []);
    expect(reported.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, ALL.length]);
    expect(reported.flat()).toEqual(ALL);
  });

  it('a second run applies nothing', async () => {
    const { name, url } = await emptyDatabase();
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: url };
    expect((await run('src/cli/migrate.js', env)).code).toBe(0);
    const again = await run('src/cli/migrate.js', env);
    expect(again.code).toBe(0);
    expect(again.lines.find((l) => l.msg === 'migrations applied')?.applied).toEqual([]);
    expect(await applied(name)).toEqual(ALL);
  });
});

describe('in production the API and the worker wait for the schema instead of migrating', () => {
  it.each([
    ['API', 'src/main.js'],
    ['worker', 'worker/main.js'],
  ])('%s: migrates nothing, waits, and goes on once npm run migrate has run', async (_name, script) => {
    const { name, url } = await emptyDatabase();
    // A complete production configuration on a loopback database (no TLS needed there), and a Temporal
    // address nothing listens on: the worker must not reach a dev server someone runs on 7233.
    const env = {
      ...productionEnv(),
      DATABASE_URL: url,
      PORT: '0',
      LOG_LEVEL: 'info',
      SCHEMA_WAIT_SECONDS: '60',
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    };
    let output = '';
    const child = processes.start(script, { PATH: process.env.PATH, ...env });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await until(() => logLines(output).some((l) => l.msg === 'waiting for the database schema (npm run migrate)'));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await applied(name)).toEqual([]);
    expect(logLines(output).some((l) => l.msg === 'database schema is current')).toBe(false);

    expect((await run('src/cli/migrate.js', { ...env, NODE_ENV: 'production' })).code).toBe(0);
    await until(() => logLines(output).some((l) => l.msg === 'database schema is current'));
    expect(await applied(name)).toEqual(ALL);
    child.kill('SIGTERM');
    await exited(child);
  });

  it('gives up after SCHEMA_WAIT_SECONDS, naming the command to run', async () => {
    const { url } = await emptyDatabase();
    const env = {
      ...productionEnv(),
      DATABASE_URL: url,
      PORT: '0',
      LOG_LEVEL: 'info',
      SCHEMA_WAIT_SECONDS: '2',
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    };
    const result = await run('src/main.js', env);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`the database schema is ${ALL.length} migrations behind after 2 s: run npm run migrate`);
  });
});

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
