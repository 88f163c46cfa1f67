/**
 * The app served in a bench child process (`fork` of a phase's file), timed inside the process per
 * URL prefix: what the history, roster, B2B and admin-links phases share. The parent sends 'stop'
 * and 'timing' (and any message of the phase's own); the child answers `{ type: 'ready', port,
 * ...fixture }` once its fixture is signed in, or `{ type: 'failed', error }` (lib/child.ts).
 */
import type { ChildProcess } from 'node:child_process';
import type { Pool } from 'pg';
import { createApp } from '../../src/app';
import { createMemoryMessageSender, type MessageSender } from '../../src/providers/messages';
import { closeApp, discardLogger, openDb, serverContext, type ServerContext } from './app';
import { serveChild, type Built } from './child';
import { forkChild, type OnCleanup } from './processes';
import { requestTimer } from './timing';

export interface TimedAppOptions {
  messages?: MessageSender;
  /** URL prefixes timed (and the method, when only one is). */
  timed: string[];
  method?: string;
  /** Runs before the app is built, e.g. to capture statements on the pool. */
  beforeApp?: (pool: Pool) => void;
  /** Answers a message of the phase's own from the parent (undefined: no answer). */
  handle?: (msg: unknown) => unknown;
  /** The fixture the parent needs, set up once the app listens (its fields join the ready message). */
  fixture?: (baseUrl: string, pool: Pool) => Promise<Record<string, unknown>>;
}

/** The app with a request timer around it; 'timing' answers the samples since the last 'timing'. */
export async function timedApp(ctx: ServerContext, o: TimedAppOptions): Promise<Built> {
  const { db, pool } = await openDb(ctx);
  o.beforeApp?.(pool);
  const app = createApp({
    config: ctx.config,
    db,
    messages: o.messages ?? createMemoryMessageSender(),
    logger: discardLogger(ctx.config),
    temporalReady: () => Promise.resolve(),
  });
  const timer = requestTimer(app, o.timed, o.method);
  const { fixture } = o;
  return {
    app,
    listener: timer.listener,
    ready: fixture && ((baseUrl) => fixture(baseUrl, pool)),
    handle: (msg) => (msg === 'timing' ? { type: 'timing', samples: timer.take() } : o.handle?.(msg)),
    close: () => closeApp(app, pool),
  };
}

/** Child process entry of a phase's own timed server. */
export function serveTimedApp(o: TimedAppOptions): Promise<void> {
  return serveChild(() => timedApp(serverContext(), o));
}

/** What a phase gives the parent side of its server child. */
export interface TimedAppDeps {
  databaseUrl: string;
  onCleanup: OnCleanup;
}

/**
 * Forks a phase's file as its server child (`flag` makes it call serveTimedApp) and waits for the
 * ready message, whose fields are the fixture; `name` labels the clean-up and the errors.
 */
export async function forkTimedApp<Ready extends { type: 'ready'; port: number }>(
  deps: TimedAppDeps,
  child: { file: string; flag: string; name: string; env?: Record<string, string> },
): Promise<{ proc: ChildProcess; ready: Ready }> {
  return forkChild<Ready>(`the ${child.name}`, child.file, [child.flag], {
    env: { ...process.env, BENCH_DATABASE_URL: deps.databaseUrl, ...child.env },
    onCleanup: deps.onCleanup,
  });
}
