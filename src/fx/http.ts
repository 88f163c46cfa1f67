import type { Logger } from 'pino';
import { HttpRefused, HttpUnavailable, requestJson } from '../providers/http';
import { FX_CURRENCIES, normalizeRate, type FxCurrency } from '../lib/money';
import { FxSourceError, type FetchedRates, type FxSource } from './source';

export interface HttpFxSourceOptions {
  url: string;
  token?: string;
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * A USD-based JSON feed by URL (FX_HTTP_URL): `GET {url}` (with `Authorization: Bearer {FX_HTTP_TOKEN}`
 * when set) answering 2xx `{ "base": "USD", "rates": { "SAR": 3.75, "AED": 3.6725, … } }` (numbers or
 * decimal strings). Currencies we do not display are ignored; a rate that is not a positive number is
 * dropped. Another base, no `rates` object or no usable rate at all is a malformed answer. Timeouts,
 * 408/425/429/5xx and network failures are retried (FX_HTTP_RETRIES), then transient; a 4xx is a
 * refusal. Snapshots record the URL's host as their source.
 */
export function createHttpFxSource(options: HttpFxSourceOptions): FxSource {
  const source = new URL(options.url).host;
  const policy = { timeoutMs: options.timeoutMs, retries: options.retries, backoffMs: options.backoffMs, logger: options.logger };
  return {
    name: source,
    async fetchRates(): Promise<FetchedRates> {
      let body: unknown;
      try {
        body = (await requestJson({ provider: 'fx source', method: 'GET', url: options.url, token: options.token }, policy)).body;
      } catch (err) {
        if (err instanceof HttpUnavailable) throw new FxSourceError(err.message, true);
        if (err instanceof HttpRefused) throw new FxSourceError(err.message, false);
        throw err;
      }
      const answer = (typeof body === 'object' && body !== null ? body : {}) as { base?: unknown; rates?: unknown };
      if (typeof answer.base !== 'string' || answer.base.toUpperCase() !== 'USD') {
        throw new FxSourceError('fx source answered without base USD', false);
      }
      if (typeof answer.rates !== 'object' || answer.rates === null) throw new FxSourceError('fx source answered without rates', false);
      const given = answer.rates as Record<string, unknown>;
      const rates: Partial<Record<FxCurrency, string>> = {};
      for (const currency of FX_CURRENCIES) {
        const value = given[currency];
        const rate = typeof value === 'number' || typeof value === 'string' ? normalizeRate(value) : null;
        if (rate !== null) rates[currency] = rate;
      }
      if (Object.keys(rates).length === 0) throw new FxSourceError('fx source answered no usable rate', false);
      return { source, rates };
    },
  };
}
