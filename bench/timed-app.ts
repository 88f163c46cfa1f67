/**
 * The app served in a bench child process (`fork` of a phase's file), timed inside the process per
 * URL prefix: what the roster and B2B phases share. The parent sends 'stop' and 'timing' (and any
 * message of the phase's own); the child answers `{ type: 'ready', port, ...fixture }` once its
 * fixture is signed in, or `{ type: 'failed', error }`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { createApp } from '../src/app';
import { loadConfig, type Config } from '../src/config';
import { nativePool, openOrm } from '../src/db/orm';
import { createLogger } from '../src/http/logger';
import type { MessageSender } from '../src/providers/messages';
import { insertCompanyOf } from './b2b-fixtures';
import { jsonPoster, requestTimer, sentOtp } from './processes';

/** As in every phase: answer checks against the document are off, as in production; the rate limit is out of the way. */
export function benchConfig(): Config {
  return loadConfig({ NODE_ENV: 'test', RATE_LIMIT_MAX: '100000000', LOG_LEVEL: 'info', CONTRACT_CHECKS: 'false' });
}

export interface TimedAppOptions {
  messages: MessageSender;
  /** URL prefixes timed (and the method, when only one is). */
  timed: string[];
  method?: string;
  /** Runs before the app is built, e.g. to capture statements on the pool. */
  beforeApp?: (pool: Pool) => void;
  /** A message of the phase's own from the parent; `send` answers it. */
  onMessage?: (msg: unknown, send: (answer: unknown) => void) => void;
  /** The fixture the parent needs, set up once the app listens (its fields join the ready message). */
  fixture: (baseUrl: string, pool: Pool) => Promise<Record<string, unknown>>;
}

export async function serveTimedApp(o: TimedAppOptions): Promise<void> {
  const send = (msg: unknown) => process.send?.(msg);
  const config = benchConfig();
  const orm = await openOrm(process.env.BENCH_DATABASE_URL ?? '', config.DATABASE_POOL_MAX);
  const pool = await nativePool(orm);
  o.beforeApp?.(pool);
  const app = createApp({
    config,
    orm,
    pool,
    messages: o.messages,
    logger: createLogger(config.LOG_LEVEL, { write() {} }),
    temporalReady: () => Promise.resolve(),
  });
  const timer = requestTimer(app, o.timed, o.method);
  const server: Server = createServer(timer.listener);
  server.keepAliveTimeout = 65_000;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await (app.locals.stop as () => Promise<void>)().catch(() => undefined);
    await orm.close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (msg) => {
    if (msg === 'stop') void stop();
    else if (msg === 'timing') send({ type: 'timing', samples: timer.take() });
    else o.onMessage?.(msg, send);
  });
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    send({ type: 'ready', port, ...(await o.fixture(`http://127.0.0.1:${port}`, pool)) });
  } catch (err) {
    send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await stop();
  }
}

/** What a phase gives the parent side of its server child. */
export interface TimedAppDeps {
  databaseUrl: string;
  /** Adds to the bench's clean-up list (runs on success, error and signals). */
  onCleanup(name: string, fn: () => Promise<void>): void;
  stopChild(proc: ChildProcess): Promise<void>;
}

/**
 * Forks a phase's file as its server child (`flag` makes it call serveTimedApp) and waits for the
 * ready message, whose fields are the fixture; `name` labels the clean-up and the errors.
 */
export async function forkTimedApp<Ready extends { type: 'ready'; port: number }>(
  deps: TimedAppDeps,
  child: { file: string; flag: string; name: string; env?: Record<string, string> },
): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(child.file, [child.flag], {
    env: { ...process.env, BENCH_DATABASE_URL: deps.databaseUrl, ...child.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  deps.onCleanup(child.name, () => deps.stopChild(proc));
  type FromChild = Ready | { type: 'failed'; error: string };
  const msg = await new Promise<FromChild>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as FromChild));
    proc.once('exit', (code) => reject(new Error(`the ${child.name} exited early (code ${code})`)));
  });
  if (msg.type !== 'ready') throw new Error(`the ${child.name} failed to start: ${'error' in msg ? msg.error : JSON.stringify(msg)}`);
  return { proc, ready: msg };
}

export interface CompanyAdmin {
  token: string;
  userId: string;
  companyId: string;
}

/**
 * A user signed up and in as a mobile client over HTTP, like a client; `promote` runs between the
 * two (a role or a company by SQL: no route grants them to oneself).
 */
export async function signedInUser(
  baseUrl: string,
  sent: { to: string; text: string }[],
  who: { phone: string; name: string },
  promote: (userId: string) => Promise<void>,
): Promise<{ token: string; userId: string }> {
  const post = jsonPoster(baseUrl);
  const consents = ['terms_of_service', 'privacy_policy', 'data_processing'].map((type) => ({ type, version: '2026-01' }));
  const reg = await post('/auth/register', { phone: who.phone, name: who.name, consents });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.json)}`);
  const userId = reg.json.userId as string;
  await promote(userId);
  const verify = await post('/auth/verify-otp', { phone: who.phone, otp: sentOtp(sent, who.phone) }, { 'X-Client-Type': 'mobile' });
  const token = (verify.json.session as { token?: string } | undefined)?.token;
  if (verify.status !== 200 || !token) throw new Error(`verify-otp failed: ${verify.status} ${JSON.stringify(verify.json)}`);
  return { token, userId };
}

/** A b2b_admin of an approved company (bench/b2b-fixtures.ts writes both). */
export async function signedInCompanyAdmin(
  baseUrl: string,
  pool: Pool,
  sent: { to: string; text: string }[],
  who: { phone: string; crNumber: string; name: string },
): Promise<CompanyAdmin> {
  let companyId = '';
  const user = await signedInUser(baseUrl, sent, { phone: who.phone, name: `${who.name} admin` }, async (userId) => {
    companyId = await insertCompanyOf(pool, userId, who.crNumber, who.name);
  });
  return { ...user, companyId };
}
