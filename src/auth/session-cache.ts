import type { Pool } from 'pg';
import { createListener } from '../db/listener';
import type { Principal } from '../http/principal';

export const AUTH_CHANGED_CHANNEL = 'auth_changed';

interface Entry {
  principal: Omit<Principal, 'token'>;
  /** The request's device (keyed hash of X-Device-Id) the blocklist check covered. */
  device: string | null;
  until: number;
}

export interface SessionCache {
  /** Only for the device id the stored check covered (another device must be checked against the blocklist). */
  get(tokenHash: string, device: string | null): Omit<Principal, 'token'> | undefined;
  /**
   * A mark to take before reading the session from the database; `set` stores what was read only
   * if no invalidation was handled (and the listener did not drop) since the mark.
   */
  mark(): number;
  set(tokenHash: string, principal: Omit<Principal, 'token'>, readSince: number, device: string | null): void;
  evictUser(userId: string): void;
  evictToken(tokenHash: string): void;
  stop(): Promise<void>;
}

/**
 * Verified sessions, kept for a few seconds so the hot path skips token
 * verification and the database. Correctness comes from invalidation, not
 * from the TTL: triggers on users, sessions, token_blocklist and device_blocklist NOTIFY
 * `auth_changed`, every instance LISTENs and evicts at once. While the
 * listening connection is down, or silent (src/db/listener.ts probes it), the cache answers nothing,
 * and a reconnect starts from nothing.
 *
 * Eviction alone has a race: a request reads a live session, the revocation
 * commits and its NOTIFY evicts a cache that holds nothing yet, then the
 * request stores the stale principal for the whole TTL. So every handled
 * invalidation (and every loss or start of the listener) advances an epoch;
 * a request marks the epoch before its read and stores only if it has not
 * moved. A notification can only be handled after its commit, so either the
 * read saw the change or the epoch moved before the store. (Any invalidation
 * voids the store, not only this user's: they are rare next to reads, and the
 * request's answer is still fresh; only its caching is skipped.)
 */
export function createSessionCache(opts: {
  pool: Pool;
  ttlMs: number;
  maxEntries?: number;
  onError?: (err: unknown) => void;
  /** The listener's probe (src/db/listener.ts); defaults there. */
  probeIntervalMs?: number;
  probeTimeoutMs?: number;
}): SessionCache {
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  const max = opts.maxEntries ?? 50_000;
  let epoch = 0;

  function clear() {
    entries.clear();
    byUser.clear();
  }

  function evictToken(hash: string) {
    const entry = entries.get(hash);
    if (!entry) return;
    entries.delete(hash);
    byUser.get(entry.principal.user.id)?.delete(hash);
  }

  function evictUser(userId: string) {
    for (const hash of byUser.get(userId) ?? []) entries.delete(hash);
    byUser.delete(userId);
  }

  // While the listener is down (or silent: its probe goes unanswered) nothing is kept or served.
  const listener =
    opts.ttlMs > 0
      ? createListener({
          pool: opts.pool,
          channel: AUTH_CHANGED_CHANNEL,
          onNotification(payload) {
            epoch += 1;
            const [kind, id] = payload.split(':');
            if (kind === 'user' && id) evictUser(id);
            else if (kind === 'token' && id) evictToken(id);
            else clear(); // a device blocklist change (rare) may concern any session
          },
          onListening() {
            // Whatever was read before now may have missed a notification while nobody listened.
            epoch += 1;
          },
          onLost(err) {
            if (err) opts.onError?.(err);
            epoch += 1;
            clear();
          },
          probeIntervalMs: opts.probeIntervalMs,
          probeTimeoutMs: opts.probeTimeoutMs,
        })
      : undefined;
  const listening = () => listener?.listening ?? false;

  return {
    get(hash, device) {
      if (!listening()) return undefined;
      const entry = entries.get(hash);
      if (!entry || entry.device !== device) return undefined;
      if (Date.now() >= entry.until) {
        evictToken(hash);
        return undefined;
      }
      return entry.principal;
    },
    mark: () => epoch,
    set(hash, principal, readSince, device) {
      if (!listening() || readSince !== epoch) return;
      if (entries.size >= max) clear();
      entries.set(hash, { principal, device, until: Date.now() + opts.ttlMs });
      let hashes = byUser.get(principal.user.id);
      if (!hashes) byUser.set(principal.user.id, (hashes = new Set()));
      hashes.add(hash);
    },
    evictUser,
    evictToken,
    async stop() {
      epoch += 1;
      clear();
      await listener?.stop();
    },
  };
}
