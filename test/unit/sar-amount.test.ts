// The B2B money parser (SarAmount, src/http/fields.ts). Issue 20: "Any amount with more than two
// decimals is VALIDATION_ERROR, whatever its size, and positivity is checked on the value as sent
// (0.001 is not positive-after-rounding: it is refused for its 3 decimals)." Spec limits:
// "fundingSar and payment amountSar: positive, at most 99999999.99". The number is judged by its
// shortest round-trip decimal form, the digits JSON.parse read.
import fc from 'fast-check';
import { MAX_SAR, SarAmount } from '../../src/http/fields';

const parse = (n: number) => SarAmount().safeParse(n);
const MAX_HALALAS = Math.round(MAX_SAR * 100);

/** The JSON text of `halalas` as a 2-decimal SAR amount, as a client writes it: "1234.05", "7", "0.5". */
function twoDecimalText(halalas: number, style: 'padded' | 'short'): string {
  const whole = Math.floor(halalas / 100);
  const cents = String(halalas % 100).padStart(2, '0');
  if (style === 'padded') return `${whole}.${cents}`;
  const trimmed = cents.replace(/0+$/, '');
  return trimmed ? `${whole}.${trimmed}` : String(whole);
}

describe('SarAmount', () => {
  it('every amount with at most 2 decimals in range round-trips to its exact halalas', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_HALALAS }), fc.constantFrom('padded', 'short'), (halalas, style) => {
        const result = parse(JSON.parse(twoDecimalText(halalas, style)) as number);
        expect(result).toEqual({ success: true, data: halalas });
      }),
      { numRuns: 2000 },
    );
  });

  it('the edges: 0.01, 0.07, 0.29, 1.15, 5000.01 and 99999999.99 are exact', () => {
    for (const [sar, halalas] of [
      [0.01, 1],
      [0.07, 7],
      [0.29, 29],
      [1.15, 115],
      [5000.01, 500001],
      [99999999.99, 9999999999],
    ]) {
      expect([sar, parse(sar)]).toEqual([sar, { success: true, data: halalas }]);
    }
  });

  it('every amount with more than 2 significant decimals is refused, whatever its size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 1, max: 9999 }).filter((n) => n % 10 !== 0),
        (whole, cents, more) => {
          // At most 8 + 2 + 4 = 14 significant digits: the double's shortest form is exactly this text.
          const text = `${whole}.${String(cents).padStart(2, '0')}${more}`;
          const n = JSON.parse(text) as number;
          expect(String(n)).toBe(text.replace(/^0+(?=\d)/, ''));
          expect([text, parse(n).success]).toEqual([text, false]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses 5000.005, 0.001, 1e-8, 0.30000000000000004 (0.1 + 0.2) and 99999999.994: none rounds to a neighbour', () => {
    for (const n of [5000.005, 0.001, 1e-8, 0.1 + 0.2, 99999999.994, 0.015, 12.345]) {
      const result = parse(n);
      expect([n, result.success]).toEqual([n, false]);
      expect(result.error?.issues.map((i) => i.message)).toContain('Must have at most 2 decimals');
    }
  });

  it('no non-positive value passes, nor any positive one below 0.01', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ max: 0, noNaN: true }), fc.double({ min: Number.MIN_VALUE, max: 0.009999999999999, noNaN: true })),
        (n) => {
          expect([n, parse(n).success]).toEqual([n, false]);
        },
      ),
      { numRuns: 2000 },
    );
    for (const n of [0, -0, -0.01, -1, Number.MIN_VALUE]) expect([n, parse(n).success]).toEqual([n, false]);
  });

  it('refuses anything above the maximum, and what is not a finite number', () => {
    for (const n of [100_000_000, MAX_SAR + 0.01, 1e21, Infinity, NaN]) expect([n, parse(n).success]).toEqual([n, false]);
    for (const v of ['10', null, true, {}, []]) expect(SarAmount().safeParse(v).success).toBe(false);
  });
});
