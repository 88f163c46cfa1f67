import { formatRate, vatIncluded } from '../../src/documents/vat';

// VAT included in a total: total × rate / (100 + rate), half-up, in integer minor units (halalas).
describe('vatIncluded', () => {
  it('is zero on the smallest amount at 15% (0.01 SAR: 1 × 15 / 115 = 0.13 halala)', () => {
    expect(vatIncluded(1, 15)).toBe(0n);
  });

  it('rounds odd halalas to the nearest halala at 15% (total × 3 / 23)', () => {
    expect(vatIncluded(3, 15)).toBe(0n); // 0.391
    expect(vatIncluded(4, 15)).toBe(1n); // 0.522
    expect(vatIncluded(115, 15)).toBe(15n); // exact
    expect(vatIncluded(4999, 15)).toBe(652n); // 652.04
    expect(vatIncluded(123450, 15)).toBe(16102n); // 1,234.50 SAR: 16102.17
    expect(vatIncluded(11499, 15)).toBe(1500n); // 1499.87
  });

  it('rounds an exact half up, and stays below it just under', () => {
    expect(vatIncluded(3, 20)).toBe(1n); // 3 × 20 / 120 = 0.5
    expect(vatIncluded(9, 20)).toBe(2n); // 1.5
    expect(vatIncluded(2, 20)).toBe(0n); // 0.333
    expect(vatIncluded(4, 60)).toBe(2n); // 4 × 60 / 160 = 1.5
    expect(vatIncluded(12, 60)).toBe(5n); // 4.5
  });

  it('at rate 0 is always zero', () => {
    expect(vatIncluded(0, 0)).toBe(0n);
    expect(vatIncluded(1, 0)).toBe(0n);
    expect(vatIncluded(9_999_999_999, 0)).toBe(0n);
  });

  it('at rate 100 is half the total, halves rounded up', () => {
    expect(vatIncluded(1, 100)).toBe(1n); // 0.5
    expect(vatIncluded(2, 100)).toBe(1n);
    expect(vatIncluded(3, 100)).toBe(2n); // 1.5
    expect(vatIncluded(10_000, 100)).toBe(5_000n);
  });

  it('takes a fractional rate as the decimal it was written as', () => {
    expect(vatIncluded(9, 12.5)).toBe(1n); // 9 × 12.5 / 112.5 = 1
    expect(vatIncluded(4, 12.5)).toBe(0n); // 0.444
    expect(vatIncluded(5, 12.5)).toBe(1n); // 0.556
    expect(vatIncluded(63, 0.8)).toBe(1n); // 63 × 8 / 1008 = 0.5 exactly: half-up
    expect(vatIncluded(189, 0.8)).toBe(2n); // 1.5
    expect(vatIncluded(62, 0.8)).toBe(0n); // 0.492
    expect(vatIncluded(1151, 15.1)).toBe(151n); // 1151 × 151 / 1151: exact although 15.1 is no binary double
    expect(vatIncluded(500, 0.1)).toBe(0n); // 500 / 1001 = 0.4995
    expect(vatIncluded(501, 0.1)).toBe(1n); // 0.5005
  });

  it('is exact on large totals, beyond what a double holds', () => {
    // 99,999,999.99 SAR (the largest amountSar): 9_999_999_999 × 3 / 23 = 1_304_347_825.96
    expect(vatIncluded(9_999_999_999, 15)).toBe(1_304_347_826n);
    // 10^20 × 3 / 23 = 13_043_478_260_869_565_217.39
    expect(vatIncluded(10n ** 20n, 15)).toBe(13_043_478_260_869_565_217n);
    expect(vatIncluded(10n ** 20n + 1n, 100)).toBe(5n * 10n ** 19n + 1n); // (10^20 + 1) / 2 = …0.5, up
  });

  it('never exceeds the total and is zero on a zero total', () => {
    for (const rate of [0, 5, 15, 99.99, 100]) {
      for (const total of [0, 1, 2, 7, 100, 12_345]) expect(vatIncluded(total, rate)).toBeLessThanOrEqual(BigInt(total));
    }
    expect(vatIncluded(0, 15)).toBe(0n);
  });

  it('refuses a negative total and a rate outside 0-100', () => {
    expect(() => vatIncluded(-1, 15)).toThrow(RangeError);
    expect(() => vatIncluded(100, -0.5)).toThrow(RangeError);
    expect(() => vatIncluded(100, 100.01)).toThrow(RangeError);
    expect(() => vatIncluded(100, Number.NaN)).toThrow(RangeError);
  });
});

describe('formatRate', () => {
  it('prints the rate as written', () => {
    expect(formatRate(15)).toBe('15');
    expect(formatRate(12.5)).toBe('12.5');
    expect(formatRate(15.1)).toBe('15.1');
    expect(formatRate(0)).toBe('0');
  });
});
