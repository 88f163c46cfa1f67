import type { Pool } from 'pg';
import { createListener } from './listener';

/** Triggers on the portal's tables NOTIFY this channel (migration PortalChanged); the payload is one tag. */
export const PORTAL_CHANGED_CHANNEL = 'portal_changed';

/**
 * What an answer depends on, as the triggers name it (migration PortalChanged):
 * - `company:<id>`: any row of that company (its roster, links, contract, payments, charges, company
 *   orders with their items and activations, quotes, memberships, the company row itself);
 * - `user:<id>`: that user's memberships, their activations when they are on a roster (any order: the
 *   roster shows their latest), or a column of theirs an answer shows or a guard reads;
 * - `users`: any user's row (answers listing people without naming each);
 * - `links`, `quotes`, `companies`: any row of those, in any company (the admin lists);
 * - `all` (packages, operators): everything.
 */
export type ReadTag = `company:${string}` | `user:${string}` | 'users' | 'links' | 'quotes' | 'companies';

export interface Loaded<T> {
  value: T;
  tags: ReadTag[];
}

export interface ReadCache {
  /**
   * The value kept under `key`, or `load`'s, kept under its tags if no invalidation was handled
   * while it was read. Concurrent misses of one key share one load when nothing was invalidated
   * since it started. Values are shared between requests: never change one.
   */
  read<T>(key: string, load: () => Promise<Loaded<T>>): Promise<T>;
  /** Forgets everything now (a write of this process: its own answers must show it at once). */
  invalidateAll(): void;
  stop(): Promise<void>;
}

interface Entry {
  value: unknown;
  tags: ReadTag[];
  /** Clock milliseconds it was read at, and until when it may be served. */
  at: number;
  until: number;
}

/**
 * Answers of the portal and admin reads (and the guards' membership and staff-access lookups),
 * kept in the process. Correctness comes from invalidation, as for the session cache
 * (src/auth/session-cache.ts, whose epoch rule this follows): row triggers NOTIFY
 * `portal_changed` with a tag, every instance LISTENs and
 * evicts what carries the tag; a write through this process forgets everything at once
 * (invalidateAll). A load stores only if no invalidation was handled since it started, so a read
 * racing a write never keeps the old rows. While the listener is down nothing is kept.
 *
 * The time limit (`ttlMs`, on the app's clock) only bounds what no row change announces: lazy
 * expiry (a link past expiresAt reads `expired`) and the rolling windows (24 hours, 30 days) show
 * at most that late. docs/decisions/portal-reads.md.
 */
export function createReadCache(opts: {
  pool: Pool;
  ttlMs: number;
  clock: () => Date;
  maxEntries?: number;
  onError?: (err: unknown) => void;
  /** The listener's probe (src/db/listener.ts); defaults there. */
  probeIntervalMs?: number;
  probeTimeoutMs?: number;
}): ReadCache {
  const entries = new Map<string, Entry>();
  const byTag = new Map<string, Set<string>>();
  const flights = new Map<string, { epoch: number; promise: Promise<unknown> }>();
  const max = opts.maxEntries ?? 20_000;
  const enabled = opts.ttlMs > 0;
  let epoch = 0;

  function clear() {
    entries.clear();
    byTag.clear();
    flights.clear();
  }

  function drop(key: string) {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    for (const tag of entry.tags) byTag.get(tag)?.delete(key);
  }

  function evict(tag: string) {
    const keys = byTag.get(tag);
    if (!keys) return;
    byTag.delete(tag);
    for (const key of keys) drop(key);
  }

  function invalidateAll() {
    epoch += 1;
    clear();
  }

  function onNotification(payload: string) {
    epoch += 1;
    if (payload === 'all') clear();
    else evict(payload);
  }

  // While the listener is down (or silent: its probe goes unanswered) nothing is kept or served from memory.
  const listener = enabled
    ? createListener({
        pool: opts.pool,
        channel: PORTAL_CHANGED_CHANNEL,
        onNotification,
        // Whatever was read before now may have missed a notification while nobody listened.
        onListening: invalidateAll,
        onLost(err) {
          if (err) opts.onError?.(err);
          invalidateAll();
        },
        probeIntervalMs: opts.probeIntervalMs,
        probeTimeoutMs: opts.probeTimeoutMs,
      })
    : undefined;
  const listening = () => listener?.listening ?? false;

  function store(key: string, loaded: Loaded<unknown>, readSince: number, at: number) {
    if (!listening() || readSince !== epoch) return;
    if (entries.size >= max) clear();
    entries.set(key, { value: loaded.value, tags: loaded.tags, at, until: at + opts.ttlMs });
    for (const tag of loaded.tags) {
      let keys = byTag.get(tag);
      if (!keys) byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  return {
    async read<T>(key: string, load: () => Promise<Loaded<T>>): Promise<T> {
      if (!listening()) return (await load()).value;
      const now = opts.clock().getTime();
      const entry = entries.get(key);
      if (entry) {
        // A clock that went back (tests) or past the limit: read again.
        if (now >= entry.at && now < entry.until) return entry.value as T;
        drop(key);
      }
      const flight = flights.get(key);
      if (flight && flight.epoch === epoch) return (await flight.promise) as T;
      const since = epoch;
      const promise = load().then((loaded) => {
        store(key, loaded, since, now);
        return loaded.value;
      });
      flights.set(key, { epoch: since, promise });
      try {
        return await promise;
      } finally {
        if (flights.get(key)?.promise === promise) flights.delete(key);
      }
    },
    invalidateAll,
    async stop() {
      invalidateAll();
      await listener?.stop();
    },
  };
}

/** Method names of requests that never write (their answers are what the cache keeps). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Express middleware: any other request may write, so the cache forgets everything when it starts
 * and again when its answer is written (after its transaction committed), before the client can
 * ask again.
 */
export function forgetOnWrites(cache: Pick<ReadCache, 'invalidateAll'>) {
  return (req: { method: string }, res: { once(event: 'finish' | 'close', fn: () => void): unknown }, next: () => void) => {
    if (!SAFE_METHODS.has(req.method)) {
      cache.invalidateAll();
      const forget = () => cache.invalidateAll();
      res.once('finish', forget);
      res.once('close', forget);
    }
    next();
  };
}
