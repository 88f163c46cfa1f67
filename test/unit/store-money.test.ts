/**
 * Store money (spec "Gate and currencies"): "A display price is `priceUsd × ratePerUsd`, rounded half-up
 * to 2 decimals, computed in integer minor units." Written once (src/lib/money.ts); checked here
 * against an independent BigInt computation over random prices and rates.
 */
import fc from 'fast-check';
import { amountOf, displayMinor, minorUnitsOf, normalizeRate } from '../../src/lib/money';

/** The same rule in BigInt: cents × rate, the rate as an integer over 10^scale, half-up. */
function referenceDisplayMinor(cents: number, rate: string): number {
  const [whole, fraction = ''] = rate.split('.');
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(whole + fraction);
  const product = BigInt(cents) * scaled;
  return Number((2n * product + scale) / (2n * scale));
}

const rate = fc
  .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9_999_999_999 }))
  .map(([whole, places, digits]) => {
    if (places === 0) return String(whole === 0 ? 1 : whole);
    return `${whole}.${String(digits).padStart(10, '0').slice(0, places)}`;
  })
  .filter((r) => Number(r) > 0);

describe('display prices', () => {
  it('is priceUsd × ratePerUsd, half-up, in integer minor units (random prices and rates)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), rate, (cents, r) => {
        expect(displayMinor(cents, r)).toBe(referenceDisplayMinor(cents, r));
      }),
      { numRuns: 2000 },
    );
  });

  it('matches the contract table: SAR 3.75, AED 3.6725, EUR 0.92, GBP 0.79, EGP 48.50', () => {
    expect(displayMinor(1200, '3.75')).toBe(4500); // 12.00 USD = 45.00 SAR
    expect(displayMinor(450, '3.6725')).toBe(1653); // 4.50 × 3.6725 = 16.52625 -> 16.53
    expect(displayMinor(3900, '0.92')).toBe(3588);
    expect(displayMinor(600, '0.79')).toBe(474);
    expect(displayMinor(40, '48.50')).toBe(1940);
  });

  it('rounds exactly half up, where floats would not', () => {
    // 0.05 USD × 0.5 = 0.025 -> 0.03 (2.5 cents, half-up); 1.15 × 1 stays 1.15.
    expect(displayMinor(5, '0.5')).toBe(3);
    expect(displayMinor(115, '1')).toBe(115);
    expect(displayMinor(1, '0.4999999999')).toBe(0);
    expect(displayMinor(1, '0.5')).toBe(1);
  });

  it('is monotonic in the price', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 1_000 }), rate, (a, d, r) => {
        expect(displayMinor(a + d, r)).toBeGreaterThanOrEqual(displayMinor(a, r));
      }),
    );
  });
});

describe('amounts at the edge', () => {
  it('turns minor units into a JSON number with at most 2 decimals and back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), (minor) => {
        const amount = amountOf(minor);
        expect(String(amount)).toMatch(/^\d+(\.\d{1,2})?$/);
        expect(minorUnitsOf(amount)).toBe(minor);
      }),
    );
  });

  it('refuses an amount with more than 2 decimals instead of rounding it', () => {
    expect(minorUnitsOf(12.345)).toBeNull();
    expect(minorUnitsOf(0.1 + 0.2)).toBeNull();
    expect(minorUnitsOf(Number.NaN)).toBeNull();
    expect(minorUnitsOf(12.3)).toBe(1230);
  });
});

describe('rates as fetched', () => {
  it('keeps a positive rate exactly, up to 10 decimals (half-up beyond), and refuses the rest', () => {
    expect(normalizeRate(3.75)).toBe('3.75');
    expect(normalizeRate(3.6725)).toBe('3.6725');
    expect(normalizeRate('48.50')).toBe('48.5');
    expect(normalizeRate(0.123456789012345)).toBe('0.123456789');
    expect(normalizeRate(1e-12)).toBeNull();
    expect(normalizeRate(0)).toBeNull();
    expect(normalizeRate(-1)).toBeNull();
    expect(normalizeRate('abc')).toBeNull();
    expect(normalizeRate(Number.POSITIVE_INFINITY)).toBeNull();
    expect(normalizeRate(1e12)).toBeNull();
  });
});
