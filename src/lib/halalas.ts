import Decimal from 'decimal.js';

/**
 * SAR on the wire, integer halalas everywhere else. B2B amounts travel as JSON numbers (the spec):
 * a number is turned into halalas once, at the edge, and every sum, comparison and VAT figure is
 * integer arithmetic on halalas; only the answer turns them back into a number.
 */

/**
 * Whole halalas of a SAR number, or null when it has more than 2 decimals or is not finite. The number
 * is read as its shortest round-trip decimal form (JavaScript's String(n): the digits JSON.parse read,
 * "5000.005", "0.07", "1e-8"), exactly, with decimal.js: no tolerance that grows with the amount
 * (5000.005 × 100 is 500000.49999999994 in floats), and no tiny amount rounded to 0.
 */
export function halalasOf(sar: number): number | null {
  if (!Number.isFinite(sar)) return null;
  const exact = new Decimal(sar);
  return exact.decimalPlaces() <= 2 ? exact.times(100).toNumber() : null;
}

/** SAR number for the wire: halalas / 100, the nearest double to the 2-decimal amount (JSON prints 1234.5 for 1234.50). */
export function sarOf(halalas: number | string | bigint): number {
  const n = typeof halalas === 'number' ? halalas : Number(halalas);
  if (!Number.isSafeInteger(n)) throw new Error(`not a whole number of halalas: ${String(halalas)}`);
  return n / 100;
}

/** Halalas from a `numeric(12,2)` column (a decimal string such as "49.00"), exactly: no float on the way. */
export function halalasOfDecimal(decimal: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(decimal.trim());
  if (!match) throw new Error(`not a 2-decimal amount: ${decimal}`);
  const [, sign, whole, fraction = ''] = match;
  const halalas = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return sign === '-' ? -halalas : halalas;
}
