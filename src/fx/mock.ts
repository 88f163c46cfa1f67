import type { FxSource } from './source';

/** The mock FX source's published rates per USD (spec "Development stand-ins"), source `mock`. */
export const MOCK_FX_RATES = { SAR: '3.75', AED: '3.6725', EUR: '0.92', GBP: '0.79', EGP: '48.5' } as const;
export const MOCK_FX_SOURCE = 'mock';

/** Fixed rates, no network: the development default, refused in production while the store is on. */
export function createMockFxSource(): FxSource {
  return {
    name: MOCK_FX_SOURCE,
    fetchRates: () => Promise.resolve({ source: MOCK_FX_SOURCE, rates: { ...MOCK_FX_RATES } }),
  };
}
