/**
 * Load generation with autocannon, programmatically, on the parent's main thread (the parent does
 * nothing else while a measurement runs): the scenarios and the history phase's first page under load.
 */
import autocannon from 'autocannon';
import type { Fixtures, ServerKind } from './servers';

export interface Scenario {
  name: string;
  server: ServerKind;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: (fx: Fixtures) => Record<string, string>;
  body?: (fx: Fixtures) => string;
  /** The scenario whose throughput this one is compared with. */
  baseline?: string;
  /** Budget: keep at least this share of the baseline's requests per second. */
  minThroughputRatio?: number;
  /** The same route on the server without tracing: this one's share of the baseline must be at least `minShareOfUntraced` of that one's. */
  untraced?: string;
  minShareOfUntraced?: number;
  /** Only with --breakdown. */
  breakdown?: boolean;
  /** Per-scenario load overrides (e.g. a webhook burst with more connections). */
  connections?: number;
  durationSeconds?: number;
}

export const MOBILE_AUTH = (fx: Fixtures) => ({ Authorization: `Bearer ${fx.mobileToken}`, 'X-Client-Type': 'mobile' });

export async function load(
  url: string,
  scenario: Scenario,
  fx: Fixtures,
  connections: number,
  durationSeconds: number,
): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: scenario.method ?? 'GET',
    headers: { ...(scenario.body ? { 'content-type': 'application/json' } : {}), ...scenario.headers?.(fx) },
    body: scenario.body?.(fx),
    connections,
    duration: durationSeconds,
  });
}
