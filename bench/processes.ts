/** Helpers shared by the bench phases (run.ts, roster.ts, webhook-burst.ts): processes, and the server children they fork. */

import type { ChildProcess, Serializable } from 'node:child_process';
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import type { Pool } from 'pg';

/** Whether a process exists (one of another user counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Seconds since `since` (a performance.now() reading). */
export const seconds = (since: number) => (performance.now() - since) / 1000;

/** Sends a request to a server child and waits for its answer of the given type. */
export type Ask<M extends { type: string }> = <K extends M['type']>(
  child: { proc: ChildProcess },
  request: Serializable,
  type: K,
) => Promise<Extract<M, { type: K }>>;

/** The `ask` of a server child whose answers are `M` (the child's message union). */
export function asker<M extends { type: string }>(): Ask<M> {
  return <K extends M['type']>(child: { proc: ChildProcess }, request: Serializable, type: K) =>
    new Promise<Extract<M, { type: K }>>((resolve, reject) => {
      const onMessage = (msg: M) => {
        if (msg.type !== type) return;
        child.proc.off('message', onMessage);
        resolve(msg as Extract<M, { type: K }>);
      };
      child.proc.on('message', onMessage);
      child.proc.send(request, (err) => err && reject(err));
    });
}

/**
 * Records the text of the named statements as the app sends them through the
 * pool, under their keys in `names`; once all are seen, the pool's own `query`
 * is put back untouched.
 */
export function captureStatements(pool: Pool, names: Record<string, string>): Record<string, string> {
  const captured: Record<string, string> = {};
  const keys = Object.keys(names);
  const target = pool as unknown as { query: (...args: unknown[]) => unknown };
  const original = target.query;
  const ownProperty = Object.prototype.hasOwnProperty.call(target, 'query');
  const restore = () => {
    if (ownProperty) target.query = original;
    else delete (target as { query?: unknown }).query;
  };
  target.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as { name?: unknown; text?: unknown } | undefined;
    if (config && typeof config === 'object' && typeof config.name === 'string' && typeof config.text === 'string') {
      const key = keys.find((k) => names[k] === config.name);
      if (key) captured[key] = config.text;
      if (keys.every((k) => captured[k] !== undefined)) restore();
    }
    return original.apply(this, args);
  };
  return captured;
}

export interface TimingSamples {
  ms: number[];
  non2xx: number;
}

/**
 * Wraps the app in a listener that times requests whose URL starts with one of `prefixes` (and of
 * `method`, when given), per URL: from the request event to the response's 'finish'.
 */
export function requestTimer(
  app: Express,
  prefixes: string[],
  method?: string,
): { listener: RequestListener; take: () => Record<string, TimingSamples> } {
  let samples = new Map<string, TimingSamples>();
  const listener: RequestListener = (req, res) => {
    const url = req.url ?? '';
    if ((method === undefined || req.method === method) && prefixes.some((prefix) => url.startsWith(prefix))) {
      const start = process.hrtime.bigint();
      res.once('finish', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        let s = samples.get(url);
        if (!s) samples.set(url, (s = { ms: [], non2xx: 0 }));
        s.ms.push(ms);
        if (res.statusCode < 200 || res.statusCode > 299) s.non2xx++;
      });
    }
    app(req, res);
  };
  const take = () => {
    const out = Object.fromEntries(samples);
    samples = new Map();
    return out;
  };
  return { listener, take };
}

/** A JSON POST to the server child at `baseUrl`: its status and body. */
export function jsonPoster(baseUrl: string) {
  return async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, json };
  };
}

/** The code of the latest OTP the memory message sender sent to `phone` (throws when none was). */
export function sentOtp(sent: { to: string; text: string }[], phone: string): string {
  const code = [...sent]
    .reverse()
    .find((m) => m.to === phone)
    ?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error('no OTP was sent');
  return code;
}
