/**
 * What a server child measures inside its own process: requests timed from the request event to
 * the response's 'finish', and the texts of the statements the app prepares (for EXPLAIN).
 */
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import type { Pool } from 'pg';

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
