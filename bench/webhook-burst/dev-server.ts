/**
 * The webhook phase's Temporal CLI dev server (bench/webhook-burst.ts): loopback, headless, our
 * search attributes registered, its database in a SQLite file so it can be stopped and started
 * again with its state; a leftover of a bench killed outright is stopped first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { dataConverterFromConfig } from '../../src/temporal/codec';
import { OUT_DIR, ROOT } from '../lib/paths';
import { commandLine } from '../lib/proc';
import { freePort, killOnExit, pidAlive, sleep, stopChild, type Cleanups } from '../lib/processes';

const TEMPORAL_LOG = path.join(OUT_DIR, 'webhooks-temporal.log');

/** The same dynamic config as the test harness's dev server: offline, update-with-start on, eager activities. */
const DEV_SERVER_DYNAMIC_CONFIG = [
  'frontend.enableServerVersionCheck=false',
  'frontend.enableExecuteMultiOperation=true',
  'system.enableActivityEagerExecution=true',
];

export interface DevServer {
  address: string;
  client: Client;
  /** The command line, to start the same server again: same port, same database file. */
  args: string[];
  /** The server's process; replaced when it is started again. */
  current: { proc: ChildProcess };
}

/** The CLI's name for each search attribute type (`--search-attribute Name=Keyword`). */
const CLI_TYPE: Record<string, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

function temporalCli(): string {
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!cli || !existsSync(cli)) {
    throw new Error(`Temporal CLI not found (TEMPORAL_CLI_PATH=${cli ?? ''}); run through npm run bench, or source scripts/env.sh`);
  }
  return cli;
}

/**
 * `temporal server start-dev` on a free loopback port, its database in a SQLite file of
 * this run (so it can be stopped and started again with its state), with the search
 * attributes the app sets (activation runs fail to start without them). Its log goes
 * to .data/bench/webhooks-temporal.log. Returns once the default namespace answers
 * and lists our search attributes, with a client connected to it.
 */
export async function startDevServer(local: Cleanups): Promise<DevServer> {
  const cli = temporalCli();
  stopStaleDevServers();
  const port = await freePort(61000, 63000);
  const address = `127.0.0.1:${port}`;
  const dbFile = devServerFile(process.pid, 'db');
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--headless',
    '--db-filename',
    dbFile,
    '--log-level',
    'warn',
    ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPE[key.type]}`]),
  ];
  mkdirSync(OUT_DIR, { recursive: true });
  removeDbFiles(dbFile);
  const current = { proc: spawnDevServer(cli, args, 'w') };
  local.add('Temporal dev server', async () => {
    await stopChild(current.proc);
    removeDbFiles(dbFile);
  });
  const connection = await connectWhenReady(current.proc, address);
  local.add('Temporal client', () => connection.close());
  // The development payload key, as the API and worker children (their configs leave TEMPORAL_PAYLOAD_KEYS unset).
  const dataConverter = dataConverterFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: undefined });
  return { address, args, current, client: new Client({ connection, namespace: 'default', dataConverter }) };
}

/** Stops the server (SIGTERM, as an operator would) and waits for it to exit. */
export async function stopDevServer(server: DevServer): Promise<void> {
  await stopChild(server.current.proc);
}

/** Starts the same server again (same port, same database file) and waits until it answers. */
export async function restartDevServer(server: DevServer): Promise<void> {
  server.current.proc = spawnDevServer(temporalCli(), server.args, 'a');
  const connection = await connectWhenReady(server.current.proc, server.address);
  await connection.close();
}

function spawnDevServer(cli: string, args: string[], logFlags: 'w' | 'a'): ChildProcess {
  const log = openSync(TEMPORAL_LOG, logFlags);
  const proc = spawn(cli, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  // The pid file lets the next run stop this server if the bench is killed outright.
  const pidFile = devServerFile(process.pid, 'pid');
  writeFileSync(pidFile, String(proc.pid));
  const forget = () => rmSync(pidFile, { force: true });
  proc.once('exit', forget);
  killOnExit(proc, forget);
  return proc;
}

/** A connection once the default namespace answers and lists our search attributes. */
async function connectWhenReady(proc: ChildProcess, address: string): Promise<Connection> {
  const attributes = Object.values(SEARCH_ATTRIBUTES);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`the Temporal dev server exited (${proc.exitCode ?? proc.signalCode}); see ${path.relative(ROOT, TEMPORAL_LOG)}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        if (attributes.every((key) => listed.customAttributes?.[key.name])) return connection;
      } catch {
        // namespace or attributes not there yet
      }
      await connection.close();
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the Temporal dev server did not become ready; see ${path.relative(ROOT, TEMPORAL_LOG)}`);
    await sleep(250);
  }
}

/** SQLite's files of the server's database. */
function removeDbFiles(dbFile: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
}

function devServerFile(benchPid: number, kind: 'pid' | 'db'): string {
  return path.join(OUT_DIR, `webhooks-temporal.${benchPid}.${kind}`);
}

/**
 * A dev server left by a bench that was killed outright (SIGKILL): stop it if its
 * bench is gone and the pid still is a `start-dev` (not a reused pid), and remove its
 * database file.
 */
function stopStaleDevServers(): void {
  if (!existsSync(OUT_DIR)) return;
  for (const entry of readdirSync(OUT_DIR)) {
    const [, benchPid, kind] = /^webhooks-temporal\.(\d+)\.(pid|db)$/.exec(entry) ?? [];
    if (!benchPid || pidAlive(Number(benchPid))) continue;
    const file = path.join(OUT_DIR, entry);
    if (kind === 'db') {
      removeDbFiles(file);
      continue;
    }
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && commandLine(pid).includes('start-dev')) process.kill(pid, 'SIGKILL');
    rmSync(file, { force: true });
  }
}
