import type { Sql } from '../db/sql';
import { guard } from '../http/guards';
import { json, Reply, type Api } from '../http/route';
import { z } from '../openapi/registry';
import { pingDatabase } from './repository';

export interface ReadinessDeps {
  db: Sql;
  /** Resolves when Temporal answers; rejects otherwise. */
  temporalReady(): Promise<void>;
}

const TIMEOUT_MS = 2_000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await within(probe(), TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const Readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ postgres: z.enum(['ok', 'unavailable']), temporal: z.enum(['ok', 'unavailable']) }),
  })
  .openapi('Readiness');

/** Liveness (the process answers) and readiness (Postgres and Temporal reachable); outside the per-IP limit. */
export function healthRoutes(api: Api, deps: ReadinessDeps): void {
  api.define(
    {
      method: 'get',
      path: '/healthz',
      tag: 'Health',
      guard: guard.public,
      rateLimit: false,
      summary: 'Process is up',
      response: json(Health, { description: 'Up' }),
      errors: [],
    },
    () => ({ status: 'ok' as const }),
  );

  api.define(
    {
      method: 'get',
      path: '/readyz',
      tag: 'Health',
      guard: guard.public,
      rateLimit: false,
      summary: 'Postgres and Temporal are reachable',
      response: json(Readiness, { description: 'Ready' }),
      otherResponses: { 503: { description: 'A dependency is unavailable', schema: Readiness } },
      errors: [],
    },
    async () => {
      const [postgres, temporal] = await Promise.all([check(() => pingDatabase(deps.db)), check(() => deps.temporalReady())]);
      const ready = postgres === 'ok' && temporal === 'ok';
      const body = { status: ready ? ('ready' as const) : ('not_ready' as const), checks: { postgres, temporal } };
      return ready ? body : new Reply(503, body);
    },
  );
}
