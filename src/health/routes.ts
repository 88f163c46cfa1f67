import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import type { Pool } from 'pg';
import { z } from '../openapi/registry';

export interface ReadinessDeps {
  pool: Pool;
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

/** Liveness (the process answers) and readiness (Postgres and Temporal reachable). */
export function healthRoutes(registry: OpenAPIRegistry, deps: ReadinessDeps): Router {
  const router = Router();
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    tags: ['Health'],
    summary: 'Process is up',
    responses: { 200: { description: 'Up', content: { 'application/json': { schema: Health } } } },
  });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    tags: ['Health'],
    summary: 'Postgres and Temporal are reachable',
    responses: {
      200: { description: 'Ready', content: { 'application/json': { schema: Readiness } } },
      503: { description: 'A dependency is unavailable', content: { 'application/json': { schema: Readiness } } },
    },
  });

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, temporal] = await Promise.all([check(() => deps.pool.query('select 1')), check(deps.temporalReady)]);
    const ready = postgres === 'ok' && temporal === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: { postgres, temporal } });
  });
  return router;
}
