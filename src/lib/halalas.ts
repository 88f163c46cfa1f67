/**
 * SAR on the wire, integer halalas everywhere else. B2B amounts travel as JSON numbers (the spec):
 * a number is turned into halalas once, at the edge, and every sum, comparison and VAT figure is
 * integer arithmetic on halalas; only the answer turns them back into a number.
 */

/** Values within this many halalas of a whole count are that count (JSON numbers are binary floats: 0.07 × 100 = 7.000000000000001). */
const FLOAT_NOISE = 1e-6;

/** Whole halalas of a SAR number, or null when it has a fraction of a halala (more than 2 decimals) or is not finite. */
export function halalasOf(sar: number): number | null {
  if (!Number.isFinite(sar)) return null;
  const scaled = sar * 100;
  const whole = Math.round(scaled);
  return Math.abs(scaled - whole) <= FLOAT_NOISE * Math.max(1, Math.abs(scaled)) ? whole : null;
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
