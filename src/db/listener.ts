// The one way a process LISTENs to Postgres: the session cache, the portal's read cache and the
// relays each keep one listener. A listener that stopped hearing must be known at once: a cache that
// trusts a dead connection keeps serving what a write already changed. So a lost connection (an
// error, its end) and a silent one (half-open: the server or a middlebox went away without a word,
// found by a probe that gets no answer in time) both end in onLost, and the listener reconnects.
import type { Pool, PoolClient } from 'pg';

export interface ListenerOptions {
  pool: Pool;
  channel: string;
  onNotification(payload: string): void;
  /** Listening (again): whatever was read before may have missed a notification while nobody listened. */
  onListening(): void;
  /** No longer listening (error, end, a probe unanswered, stop): what was kept on its word must be forgotten. */
  onLost(err?: unknown): void;
  /** How often the connection is asked `select 1` (default 10 s). */
  probeIntervalMs?: number;
  /** How long a probe may take before the connection counts as lost (default 5 s). */
  probeTimeoutMs?: number;
  /** Wait before reconnecting (default 1 s). */
  retryMs?: number;
}

export interface Listener {
  readonly listening: boolean;
  /** UNLISTENs and gives the connection back; no more callbacks. */
  stop(): Promise<void>;
}

export class ListenerProbeTimeout extends Error {
  constructor(ms: number) {
    super(`LISTEN connection did not answer a probe within ${ms} ms`);
    this.name = 'ListenerProbeTimeout';
  }
}

export function createListener(opts: ListenerOptions): Listener {
  const probeIntervalMs = opts.probeIntervalMs ?? 10_000;
  const probeTimeoutMs = opts.probeTimeoutMs ?? 5_000;
  const retryMs = opts.retryMs ?? 1_000;
  let client: PoolClient | undefined;
  let listening = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let probe: NodeJS.Timeout | undefined;

  async function listen(): Promise<void> {
    retry = undefined;
    if (stopped) return;
    let mine: PoolClient | undefined;
    try {
      mine = await opts.pool.connect();
      const current = mine;
      client = current;
      current.on('notification', (msg) => {
        if (client === current && msg.channel === opts.channel) opts.onNotification(msg.payload ?? '');
      });
      current.on('error', (err) => lost(current, err));
      current.on('end', () => lost(current));
      await current.query(`LISTEN ${opts.channel}`);
      if (stopped || client !== current) return;
      listening = true;
      opts.onListening();
      probe = setInterval(() => void check(current), probeIntervalMs);
      probe.unref();
    } catch (err) {
      lost(mine, err);
    }
  }

  async function check(current: PoolClient): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ListenerProbeTimeout(probeTimeoutMs)), probeTimeoutMs);
    });
    try {
      await Promise.race([current.query('select 1'), timeout]);
    } catch (err) {
      lost(current, err);
    } finally {
      clearTimeout(timer);
    }
  }

  function lost(which: PoolClient | undefined, err?: unknown): void {
    if (which && client !== which) return; // already handled
    if (probe) clearInterval(probe);
    probe = undefined;
    client = undefined;
    const was = listening;
    listening = false;
    // Destroyed, not returned: a connection that failed or went silent is never reused.
    which?.release(err instanceof Error ? err : true);
    if (stopped) return;
    if (was || err) opts.onLost(err);
    if (!retry) {
      retry = setTimeout(() => void listen(), retryMs);
      retry.unref();
    }
  }

  void listen();

  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (probe) clearInterval(probe);
      const current = client;
      client = undefined;
      listening = false;
      if (current) {
        await current.query(`UNLISTEN ${opts.channel}`).catch(() => undefined);
        current.release();
      }
    },
  };
}
