/**
 * The servers of the scenarios, the history phase and the webhook burst, by kind, each run in its
 * own child process: `startServer` forks this file with `--serve <kind>` (lib/child.ts is the
 * child's side). The bare route gets exactly the same treatment as the app, so a ratio between
 * them compares like with like. A scenario that needs a differently built server adds a kind here.
 */
import type { ChildProcess } from 'node:child_process';
// First, as in src/main.ts: the process telemetry, when the parent asked for it (with --require too).
import { telemetry, TELEMETRY_PRELOAD } from './telemetry';
import express, { type Express } from 'express';
import { createApp } from '../../src/app';
import { createSessionService } from '../../src/auth/sessions';
import type { Config } from '../../src/config';
import { errorHandler } from '../../src/http/error-middleware';
import { createGuards, guard } from '../../src/http/guards';
import { createLogger, requestLogger } from '../../src/http/logger';
import { createMetricsRegistry } from '../../src/telemetry/metrics';
import { observePool } from '../../src/telemetry/pool';
import { globalRateLimit } from '../../src/http/rate-limit';
import { securityHeaders } from '../../src/http/security-headers';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { connectTemporal } from '../../src/temporal/connection';
import { createPaymentRuns } from '../../src/payments/runs-temporal';
import { closeApp, discardLogger, openDb, serverContext, writtenLogger, type ServerContext } from './app';
import { serveChild, type Built, type ToParent } from './child';
import { otlpSink } from './otlp-sink';
import { PROFILE_DIR, ROOT } from './paths';
import { asker, forkChild, type OnCleanup } from './processes';
import { signedInUser } from './sign-up';
import { captureStatements } from './timing';
import { timedApp } from './timed-app';

export type ServerKind =
  | 'app'
  | 'app+tracing'
  | 'app+timing'
  | 'app+temporal'
  | 'bare'
  | 'bare+security-headers'
  | 'bare+request-log'
  | 'bare+request-log+metrics'
  | 'bare+rate-limit'
  | 'bare+session-check';

/** What the `app` server prepared for the scenarios (tokens, seeded ids). */
export interface Fixtures {
  /** Bearer token of a signed-up mobile user. */
  mobileToken: string;
  userId: string;
}

const PHONE = '+966512345678';

/** The history statements (first page, next page; no status filter), by prepared-statement name. */
const HISTORY_STATEMENTS = { first: 'activation-reads-history-fa', cursor: 'activation-reads-history-ca' } as const;

function bareApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  return app;
}

/** The one bare route; the breakdown variants also get the app's error envelope (never reached when all goes well). */
function bareRoute(app: Express, withErrorHandler = true): Express {
  app.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  if (withErrorHandler) app.use(errorHandler);
  return app;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (the parent sets it)`);
  return value;
}

/**
 * The app as src/main.ts wires it, in a process whose telemetry started first (lib/telemetry.ts): every
 * request counted and timed by route, the pool observed (read by no one here: a scrape every few seconds
 * costs nothing per request), and with tracing on, every request traced as the sampler says.
 */
async function realApp(ctx: ServerContext) {
  const { db, pool } = await openDb(ctx);
  const messages = createMemoryMessageSender();
  const meter = telemetry?.meter ?? createMetricsRegistry({ serviceName: 'bench' }).meter;
  observePool(meter, pool);
  const app = createApp({
    config: ctx.config,
    db,
    messages,
    logger: writtenLogger(ctx.config),
    temporalReady: () => Promise.resolve(),
    meter,
  });
  return { app, messages, close: () => closeApp(app, pool) };
}

const SERVERS: Record<ServerKind, (ctx: ServerContext) => Promise<Built>> = {
  bare() {
    return Promise.resolve({ app: bareRoute(bareApp(), false) });
  },
  /** The app, telemetry at its defaults; it signs one phone user up and verifies the OTP as mobile, through HTTP like a real client. */
  async app(ctx) {
    const { app, messages, close } = await realApp(ctx);
    const ready = async (baseUrl: string) => {
      const { token, userId } = await signedInUser(baseUrl, messages.messages, { phone: PHONE, name: 'Bench' });
      return { fixtures: { mobileToken: token, userId } satisfies Fixtures };
    };
    return { app, ready, close };
  },
  /** The same app with tracing on (an OTLP exporter to the parent's sink, 10% of traces kept); the `app` server's user serves it too. */
  async 'app+tracing'(ctx) {
    const { app, close } = await realApp(ctx);
    return { app, close };
  },
  /**
   * The same app, timed server-side: from the request event to the response's
   * 'finish' (everything the process does for the request: rate limit, session
   * check, query, JSON), per URL, for the history route and GET /auth/session
   * (the control). It also captures the statement texts the history reads
   * prepare, for EXPLAIN in the parent.
   */
  'app+timing'(ctx) {
    let statements: Record<string, string> = {};
    return timedApp(ctx, {
      timed: ['/activations/history', '/auth/session'],
      beforeApp: (pool) => (statements = captureStatements(pool, HISTORY_STATEMENTS)),
      handle: (msg) => (msg === 'sql' ? { type: 'sql', statements: { ...statements } } : undefined),
    });
  },
  /**
   * The real app wired to Temporal as src/main.ts wires it, for the webhook burst
   * (bench/webhook-burst.ts): the card-processor route verifies events and writes them
   * to the inbox (the worker's relay hands them to the settlement workflows on the dev
   * server the parent started; the route never waits on Temporal). Address, task queue
   * and signing secret come from the parent. Error lines (a 500 from an inbox that could
   * not be written, say) go to stderr so a failed delivery can be explained; the rest
   * are serialized and dropped as elsewhere.
   */
  async 'app+temporal'(ctx) {
    const config: Config = {
      ...ctx.config,
      TEMPORAL_ADDRESS: requiredEnv('BENCH_TEMPORAL_ADDRESS'),
      TEMPORAL_TASK_QUEUE: requiredEnv('BENCH_TEMPORAL_TASK_QUEUE'),
      CARD_PROCESSOR_WEBHOOK_SECRET: requiredEnv('BENCH_WEBHOOK_SECRET'),
    };
    const temporal = connectTemporal(config);
    await temporal.ready(); // connect now rather than on the burst's first delivery
    const { db, pool } = await openDb(ctx);
    const logger = createLogger(config.LOG_LEVEL, {
      write(line: string) {
        if (/"level":[56]0/.test(line)) process.stderr.write(line);
      },
    });
    const meter = telemetry?.meter;
    if (meter) observePool(meter, pool);
    const app = createApp({
      config,
      db,
      messages: createMemoryMessageSender(),
      logger,
      temporalReady: () => temporal.ready(),
      activationRuns: createActivationRuns(temporal.client, config),
      paymentRuns: createPaymentRuns(temporal.client, config),
      signalSender: temporalSignalSender(temporal.client),
      meter,
    });
    return {
      app,
      close: async () => {
        await temporal.connection.close().catch(() => undefined);
        await closeApp(app, pool);
      },
    };
  },
  // Breakdown: the bare route plus exactly one piece of the real app, built from src/.
  /** The security headers of every answer (src/http/security-headers.ts). */
  'bare+security-headers'() {
    const app = bareApp();
    app.use(securityHeaders());
    return Promise.resolve({ app: bareRoute(app) });
  },
  'bare+request-log'(ctx) {
    const app = bareApp();
    app.use(requestLogger(discardLogger(ctx.config)));
    return Promise.resolve({ app: bareRoute(app) });
  },
  /** The request log with the per-route request metrics, as the API runs it. */
  'bare+request-log+metrics'(ctx) {
    const app = bareApp();
    app.use(requestLogger(discardLogger(ctx.config), { meter: createMetricsRegistry({ serviceName: 'bench' }).meter }));
    return Promise.resolve({ app: bareRoute(app) });
  },
  async 'bare+rate-limit'(ctx) {
    const { pool } = await openDb(ctx);
    const app = bareApp();
    app.set('trust proxy', ctx.config.TRUST_PROXY);
    app.use(globalRateLimit({ pool, max: ctx.config.RATE_LIMIT_MAX, windowSeconds: ctx.config.RATE_LIMIT_WINDOW_SECONDS }));
    return { app: bareRoute(app), close: () => pool.end() };
  },
  async 'bare+session-check'(ctx) {
    const { db, pool } = await openDb(ctx);
    const app = bareApp();
    const sessions = createSessionService({ db, clock: () => new Date(), config: ctx.config });
    const unused = () => Promise.reject(new Error('not a staff or company route'));
    app.use(createGuards({ sessions, staffAccess: unused, membership: unused })(guard.session));
    return { app: bareRoute(app), close: () => pool.end() };
  },
};

// ---------------------------------------------------------------------------
// The parent's side
// ---------------------------------------------------------------------------

export interface Child {
  kind: ServerKind;
  proc: ChildProcess;
  port: number;
  fixtures?: Fixtures;
}

export interface StartOptions {
  databaseUrl: string;
  /** Run the server with --cpu-prof (profiles in .data/bench/profiles). */
  cpuProf: boolean;
  onCleanup: OnCleanup;
  /** Extra environment variables (e.g. the webhook burst's Temporal address). */
  env?: Record<string, string>;
}

/** The servers that run the API as src/main.ts does start their telemetry first; `app+tracing` also traces. */
async function telemetryOf(kind: ServerKind, onCleanup: OnCleanup): Promise<{ execArgv: string[]; env: Record<string, string> }> {
  if (kind !== 'app' && kind !== 'app+tracing' && kind !== 'app+temporal') return { execArgv: [], env: {} };
  const env: Record<string, string> = { BENCH_TELEMETRY: kind === 'app+tracing' ? 'tracing' : 'defaults', OTEL_TRACES_EXPORTER: 'none' };
  if (kind === 'app+tracing') {
    const sink = await otlpSink(onCleanup);
    Object.assign(env, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER_ARG: '0.1' });
  }
  return { execArgv: ['--require', TELEMETRY_PRELOAD], env };
}

export async function startServer(kind: ServerKind, o: StartOptions): Promise<Child> {
  const profile = o.cpuProf
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${kind.replace(/[^\w-]/g, '_')}.cpuprofile`]
    : [];
  const traced = await telemetryOf(kind, o.onCleanup);
  const execArgv = [...profile, ...traced.execArgv];
  type Ready = Extract<ToParent, { type: 'ready' }> & { fixtures?: Fixtures };
  const { proc, ready } = await forkChild<Ready>(`server ${kind}`, __filename, ['--serve', kind], {
    cwd: ROOT,
    env: { ...process.env, ...traced.env, ...o.env, BENCH_DATABASE_URL: o.databaseUrl },
    execArgv,
    onCleanup: o.onCleanup,
  });
  return { kind, proc, port: ready.port, fixtures: ready.fixtures };
}

export interface AppServers {
  children: Map<ServerKind, Child>;
  fixtures: Fixtures;
}

/**
 * The `app` server first: it signs the user up, and the fixtures serve every scenario and the
 * history phase; then the other kinds asked for.
 */
export async function startAppServers(kinds: ServerKind[], o: StartOptions): Promise<AppServers> {
  const all = [...new Set<ServerKind>(['app', ...kinds])];
  const children = new Map<ServerKind, Child>();
  for (const kind of all) children.set(kind, await startServer(kind, o));
  const fixtures = children.get('app')!.fixtures;
  if (!fixtures) throw new Error('the app server produced no fixtures');
  console.log(`bench: servers up (${all.join(', ')}); user signed up as mobile`);
  return { children, fixtures };
}

/** Asks a server child (any kind) and waits for its answer of that type. */
export const askServer = asker<ToParent>();

/** Cumulative CPU time (microseconds) of a server child, asked over IPC. */
export async function serverCpu(child: { proc: ChildProcess }): Promise<number> {
  return (await askServer(child, 'cpu', 'cpu')).micros;
}

if (require.main === module && process.argv[2] === '--serve') {
  const kind = process.argv[3] as ServerKind;
  void serveChild(() => {
    const builder = SERVERS[kind];
    if (!builder) throw new Error(`unknown server kind ${kind}`);
    return builder(serverContext());
  });
}
