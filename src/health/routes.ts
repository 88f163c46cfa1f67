import type { Sql } from '../db/sql';
import { guard } from '../http/guards';
import { json, Reply, type Api } from '../http/route';
import { z } from '../openapi/registry';
import { pingDatabase } from './repository';

export interface ReadinessDeps {
  db: Sql;
  /** Resolves when Temporal answers; rejects otherwise. */
  temporalReady(): Promise<void>;
  /** True once the process is shutting down (SIGTERM): readiness is off from then on. */
  stopping?(): boolean;
}

const TIMEOUT_MS = 2_000;
/** How long /readyz waits for a Temporal probe before answering with the last one: a probe's timeout is often 1 s. */
const TEMPORAL_REPORT_WAIT_MS = 250;

type Status = 'ok' | 'unavailable';

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

async function check(probe: () => Promise<unknown>): Promise<Status> {
  try {
    await within(probe(), TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

/**
 * Temporal is reported, not required, so a slow answer must not slow readiness down: one probe at a time,
 * and a request waits for it briefly, then answers with the last result (unavailable before the first).
 */
function temporalProbe(ready: () => Promise<void>): () => Promise<Status> {
  let last: Status = 'unavailable';
  let running: Promise<Status> | undefined;
  return () => {
    running ??= check(ready)
      .then((status) => (last = status))
      .finally(() => (running = undefined));
    return Promise.race([running, new Promise<Status>((resolve) => setTimeout(() => resolve(last), TEMPORAL_REPORT_WAIT_MS).unref())]);
  };
}

const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const Readiness = z
  .object({
    status: z.enum(['ready', 'degraded', 'not_ready', 'stopping']).openapi({
      description:
        'ready: everything is served. degraded: Temporal is away; requests are served (reads, sign-in, creates whose runs start ' +
        'once it is back) but not workflow actions. not_ready: Postgres is away. stopping: the process is shutting down.',
    }),
    checks: z.object({ postgres: z.enum(['ok', 'unavailable']), temporal: z.enum(['ok', 'unavailable']) }),
    serving: z.object({
      requests: z.boolean().openapi({ description: 'Requests that need Postgres only: reads, sign-in, creates (their runs start later)' }),
      workflowActions: z.boolean().openapi({
        description: 'Actions that signal or update a running workflow: identity verification, company status, quote actions',
      }),
    }),
  })
  .openapi('Readiness');

/**
 * Liveness (the process answers) and readiness (what the API can serve: Postgres is required, Temporal
 * only reported); outside the per-IP limit. Readiness is 200 while requests are served, so a load balancer
 * keeps every replica while Temporal is away, and 503 once Postgres is away or the process is stopping.
 */
export function healthRoutes(api: Api, deps: ReadinessDeps): void {
  const temporalStatus = temporalProbe(() => deps.temporalReady());
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
      summary: 'What the API can serve: Postgres required, Temporal reported',
      response: json(Readiness, { description: 'Serving requests (ready, or degraded while Temporal is away)' }),
      otherResponses: { 503: { description: 'Postgres is away, or the process is stopping', schema: Readiness } },
      errors: [],
    },
    async () => {
      const [postgres, temporal] = await Promise.all([check(() => pingDatabase(deps.db)), temporalStatus()]);
      const stopping = deps.stopping?.() ?? false;
      const requests = postgres === 'ok' && !stopping;
      const serving = { requests, workflowActions: requests && temporal === 'ok' };
      const status = stopping ? 'stopping' : postgres !== 'ok' ? 'not_ready' : temporal !== 'ok' ? 'degraded' : 'ready';
      const body = { status, checks: { postgres, temporal }, serving } as const;
      return requests ? body : new Reply(503, body);
    },
  );
}
