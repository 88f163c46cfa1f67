import type { ProviderHealth, StoreProviderPlugin } from './providers/plugin';

/** A health check waits at most this long (the HTTP plugin's own timeouts are shorter; a hung plugin must not hold a toggle). */
export const HEALTH_DEADLINE_MS = 30_000;

/**
 * A provider's health, fail closed: no plugin registered under its slug, a check that throws or one
 * that does not answer within the deadline is unhealthy.
 */
export async function checkHealth(
  plugin: StoreProviderPlugin | undefined,
  slug: string,
  deadlineMs = HEALTH_DEADLINE_MS,
): Promise<ProviderHealth> {
  if (!plugin) return { ok: false, detail: `no provider plugin is registered for ${slug} (STORE_PROVIDER)` };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProviderHealth>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `health check gave no answer within ${deadlineMs} ms` }), deadlineMs);
  });
  try {
    return await Promise.race([
      plugin.health().catch((err: unknown) => ({ ok: false, detail: err instanceof Error ? err.message : 'health check failed' })),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
