import type { FxCurrency } from '../lib/money';

/**
 * Where exchange rates come from (spec "GET /admin/settings/fx-rates": "An FX source plugin: a mock
 * with fixed published rates (default), and an HTTP JSON source configured by URL"). Only the FX
 * schedule calls it (src/store/schedules.ts, workflows/fx-fetch.ts); no route sets a rate.
 */
export interface FetchedRates {
  /** Recorded on each snapshot (`mock`, or the HTTP source's host). */
  source: string;
  /** Units per US dollar, normalized decimal text (src/lib/money.ts normalizeRate); currencies the source did not give are absent. */
  rates: Partial<Record<FxCurrency, string>>;
}

export interface FxSource {
  readonly name: string;
  fetchRates(): Promise<FetchedRates>;
}

/** The source answered nothing usable: transient (timeouts, 5xx, the network) or not (a refusal, a malformed answer). */
export class FxSourceError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'FxSourceError';
  }
}
