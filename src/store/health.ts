import type { HealthCheckOptions, ProviderHealth, StoreProviderPlugin } from './providers/plugin';

/** A health check waits at most this long (the HTTP plugin's own timeouts are shorter; a hung plugin must not hold a toggle). */
export const HEALTH_DEADLINE_MS = 30_000;

/**
 * How long a shared check's failure is kept (at most the window). A failure refuses orders (fail closed),
 * so keeping it the whole window would stretch a one-off blip into seconds of refusals; keeping it not at
 * all would let a caller repeat a check the partner refuses quickly (a 401, a 4xx) as fast as they can send.
 */
export const FAILURE_KEPT_MS = 1_000;

/**
 * A provider's health, fail closed: no plugin registered under its slug, a check that throws or one
 * that does not answer within the deadline is unhealthy.
 */
export async function checkHealth(
  plugin: StoreProviderPlugin | undefined,
  slug: string,
  deadlineMs = HEALTH_DEADLINE_MS,
  options?: HealthCheckOptions,
): Promise<ProviderHealth> {
  if (!plugin) return { ok: false, detail: `no provider plugin is registered for ${slug} (STORE_PROVIDER)` };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProviderHealth>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `health check gave no answer within ${deadlineMs} ms` }), deadlineMs);
  });
  try {
    return await Promise.race([
      plugin.health(options).catch((err: unknown) => ({ ok: false, detail: err instanceof Error ? err.message : 'health check failed' })),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type SharedHealthCheck = (plugin: StoreProviderPlugin | undefined, slug: string) => Promise<ProviderHealth>;

/**
 * The live check of POST /store/orders, one per provider at a time: callers share the check in flight,
 * then its answer for `windowMs` (a failure for FAILURE_KEPT_MS at most), so any number of orders costs
 * the partner one check per window and API process. A valid token is reused (no fresh token per order).
 */
export function sharedHealthChecks(opts: { windowMs: number; now: () => number; deadlineMs?: number }): SharedHealthCheck {
  const kept = new Map<string, { health: Promise<ProviderHealth>; until: number }>();

  function keep(slug: string, entry: { health: Promise<ProviderHealth>; until: number }, health: ProviderHealth): void {
    const keptMs = health.ok ? opts.windowMs : Math.min(opts.windowMs, FAILURE_KEPT_MS);
    if (keptMs > 0) entry.until = opts.now() + keptMs;
    else if (kept.get(slug) === entry) kept.delete(slug);
  }

  return (plugin, slug) => {
    const hit = kept.get(slug);
    if (hit && opts.now() < hit.until) return hit.health;
    // checkHealth never rejects and ends by its deadline, so an entry in flight cannot stay forever.
    const entry = { health: checkHealth(plugin, slug, opts.deadlineMs, { freshToken: false }), until: Infinity };
    kept.set(slug, entry);
    void entry.health.then((health) => keep(slug, entry, health));
    return entry.health;
  };
}
