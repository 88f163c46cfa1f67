import type { RequestHandler } from 'express';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from './errors';

export interface GlobalRateLimitOptions {
  pool: Pool;
  max: number;
  windowSeconds: number;
  /** How often locally counted requests are added to the shared Postgres counter. */
  syncMs?: number;
}

interface Window {
  /** Global count as of the last sync, plus what this instance counted since. */
  consumed: number;
  /** Counted here, not yet added to Postgres. */
  pending: number;
  resetAt: number;
  ready?: Promise<void>;
}

export interface GlobalRateLimit extends RequestHandler {
  /** Adds every pending count to Postgres now (tests, shutdown). */
  flush(): Promise<void>;
  stop(): void;
}

/**
 * The global limit (100 requests per 15 minutes per IP by default). Counters
 * live in Postgres (rate-limiter-flexible's store, table `rate_limits`) so the
 * limit holds across API instances. To keep Postgres off the per-request path,
 * the first request of a window reads the shared count; later ones count in
 * memory and are added to Postgres every `syncMs`, which reads the shared count
 * back. Other instances' requests are seen one sync later, so the limit can be
 * overshot by what they accept within one interval — within one instance it is exact.
 */
export function globalRateLimit(opts: GlobalRateLimitOptions): GlobalRateLimit {
  const store = new RateLimiterPostgres({
    storeClient: opts.pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'global',
    points: opts.max,
    duration: opts.windowSeconds,
  });
  const windows = new Map<string, Window>();

  const adopt = (w: Window, shared: RateLimiterRes) => {
    w.consumed = shared.consumedPoints + w.pending;
    w.resetAt = Date.now() + shared.msBeforeNext;
  };
  const settle = (p: Promise<RateLimiterRes>) =>
    p.catch((r: unknown) => {
      if (r instanceof RateLimiterRes) return r;
      throw r;
    });

  /** Opens a window with one consume in Postgres; resolves to this request's position in it. */
  async function open(key: string): Promise<{ w: Window; position: number }> {
    const w: Window = { consumed: 0, pending: 0, resetAt: 0 };
    let position = 0;
    w.ready = settle(store.consume(key, 1)).then((shared) => {
      adopt(w, shared);
      position = shared.consumedPoints;
    });
    windows.set(key, w);
    try {
      await w.ready;
    } catch (err) {
      windows.delete(key);
      throw err;
    }
    w.ready = undefined;
    return { w, position };
  }

  async function flush(): Promise<void> {
    const now = Date.now();
    await Promise.all(
      [...windows].map(async ([key, w]) => {
        if (w.ready) return;
        if (w.pending === 0) {
          if (now >= w.resetAt) windows.delete(key);
          return;
        }
        const n = w.pending;
        w.pending = 0;
        try {
          adopt(w, await settle(store.penalty(key, n)));
        } catch {
          w.pending += n; // keep the count; the next sync retries
        }
      }),
    );
  }

  let flushing: Promise<void> | undefined;
  const timer = setInterval(() => {
    flushing ??= flush().finally(() => (flushing = undefined));
  }, opts.syncMs ?? 100);
  timer.unref();

  const middleware = (async (req, res, next) => {
    const key = req.ip ?? 'unknown';
    let w = windows.get(key);
    // This request's position in the window, fixed now: parallel requests must not see each other's counts.
    let position: number;
    try {
      if (w?.ready) await w.ready;
      if (!w || Date.now() >= w.resetAt) {
        if (w && w.pending > 0) await flush();
        ({ w, position } = await open(key));
      } else {
        w.pending += 1;
        position = ++w.consumed;
      }
    } catch (err) {
      return next(err);
    }
    res.setHeader('X-RateLimit-Limit', String(opts.max));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, opts.max - position)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(w.resetAt / 1000)));
    if (position > opts.max) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil((w.resetAt - Date.now()) / 1000))));
      return next(new AppError('RATE_LIMIT_EXCEEDED'));
    }
    next();
  }) as GlobalRateLimit;
  middleware.flush = async () => {
    await flushing;
    await flush();
  };
  middleware.stop = () => clearInterval(timer);
  return middleware;
}
