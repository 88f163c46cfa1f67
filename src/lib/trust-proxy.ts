import express from 'express';

/** What Express's `trust proxy` setting takes: trust all or none, a hop count, or addresses, CIDRs and named ranges. */
export type TrustProxy = boolean | number | string[];

export const TRUST_PROXY_FORMS = 'true, false, a hop count, or loopback, linklocal, uniquelocal, IPs and CIDRs separated by commas';

/**
 * Reads TRUST_PROXY as Express means it: `true`/`false` are booleans (Express would read the
 * string "false" as an address and throw), digits a hop count, anything else a comma list.
 * Express itself judges the list (it compiles it at once and throws on a bad entry), so the
 * configuration accepts exactly what the app will.
 */
export function parseTrustProxy(text: string): { value: TrustProxy } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === 'true') return { value: true };
  if (trimmed === 'false') return { value: false };
  if (/^\d+$/.test(trimmed)) return { value: Number(trimmed) };
  const list = trimmed.split(',').map((entry) => entry.trim());
  try {
    express().set('trust proxy', list);
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)} (expected ${TRUST_PROXY_FORMS})` };
  }
  return { value: list };
}
