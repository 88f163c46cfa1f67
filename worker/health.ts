// The worker's health endpoint (WORKER_HEALTH_PORT): GET /healthz answers 200 while the worker polls its
// task queue, 503 before (starting: the database, the schema, the connection to Temporal), after a failure,
// and from SIGTERM on (stopping), so an orchestrator or the image's HEALTHCHECK sees a worker that does no
// work. Postgres is reported, not required: activities retry while it is away.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Sql } from '../src/db/sql';
import { pingDatabase } from '../src/health';

export interface WorkerHealthDeps {
  /** What the worker is doing: a start-up phase, then the SDK worker's state (RUNNING, DRAINING, …). */
  state(): string;
  /** True from the first shutdown signal. */
  stopping(): boolean;
  /** The database once it is open. */
  db(): Sql | undefined;
}

export interface WorkerHealth {
  port: number;
  close(): Promise<void>;
}

const PING_TIMEOUT_MS = 1_000;

async function postgresStatus(db: Sql | undefined): Promise<'ok' | 'unavailable'> {
  if (!db) return 'unavailable';
  try {
    await Promise.race([
      pingDatabase(db),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref()),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

const STARTING = new Set(['OPENING_DATABASE', 'CONNECTING', 'INITIALIZED']);

export async function startWorkerHealth(
  { port, host }: { port: number; host: string },
  deps: WorkerHealthDeps,
  logger: Pick<Logger, 'info'>,
): Promise<WorkerHealth> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'not_found' }));
      return;
    }
    void (async () => {
      const worker = deps.state();
      const checks = { postgres: await postgresStatus(deps.db()) };
      const status = deps.stopping() ? 'stopping' : worker === 'RUNNING' ? 'ok' : STARTING.has(worker) ? 'starting' : 'unavailable';
      res.writeHead(status === 'ok' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ status, worker, checks }));
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  logger.info({ url: `http://${host}:${bound}/healthz` }, 'worker health endpoint listening');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
