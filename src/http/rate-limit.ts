import type { RequestHandler } from 'express';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from './errors';

export interface GlobalRateLimitOptions {
  pool: Pool;
  max: number;
  windowSeconds: number;
}

/**
 * The global limit (100 requests per 15 minutes per IP by default). Counters
 * live in Postgres (table `rate_limits`, created by a migration) so the limit
 * holds across API instances. Every answer carries the three X-RateLimit headers.
 */
export function globalRateLimit(opts: GlobalRateLimitOptions): RequestHandler {
  const limiter = new RateLimiterPostgres({
    storeClient: opts.pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'global',
    points: opts.max,
    duration: opts.windowSeconds,
  });

  return async (req, res, next) => {
    let state: RateLimiterRes;
    let limited = false;
    try {
      state = await limiter.consume(req.ip ?? 'unknown');
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      state = rejection;
      limited = true;
    }
    res.setHeader('X-RateLimit-Limit', String(opts.max));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)));
    if (limited) {
      res.setHeader('Retry-After', String(Math.ceil(state.msBeforeNext / 1000)));
      return next(new AppError('RATE_LIMIT_EXCEEDED'));
    }
    next();
  };
}
