import type { Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

export interface DrainOptions {
  /** Readiness is off and the API still serves for this long: the load balancer's time to stop sending. */
  delayMs: number;
  /** Then no new connection is accepted, and the requests in flight get this long before theirs are closed. */
  drainMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A bounded drain of `server`, for SIGTERM. Tracks the responses in flight from the start, so that once
 * stopping each one (and every later one) says `Connection: close`: a client's next request opens a new
 * connection, which the load balancer sends to another replica.
 */
export function drainable(server: Server): { drain(opts: DrainOptions): Promise<void> } {
  const open = new Set<ServerResponse>();
  let stopping = false;
  server.on('request', (_req, res: ServerResponse) => {
    open.add(res);
    res.once('close', () => open.delete(res));
    if (stopping) res.setHeader('connection', 'close');
  });
  return {
    async drain({ delayMs, drainMs, logger }) {
      stopping = true;
      for (const res of open) if (!res.headersSent) res.setHeader('connection', 'close');
      logger.info({ delayMs, drainMs, inFlight: open.size }, 'API stopping: readiness off');
      await sleep(delayMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const outcome = await Promise.race([closed.then(() => 'drained' as const), sleep(drainMs).then(() => 'deadline' as const)]);
      if (outcome === 'deadline') {
        logger.warn({ inFlight: open.size, drainMs }, 'drain deadline passed: closing the connections of the requests still running');
        server.closeAllConnections();
        await closed;
      } else {
        logger.info('requests drained');
      }
    },
  };
}
