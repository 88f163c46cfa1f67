import Decimal from 'decimal.js';

/**
 * SAR on the wire, integer halalas everywhere else: every money column holds whole halalas (a
 * payment's, minor units of its currency), every sum, comparison and VAT figure is integer
 * arithmetic on them, in TypeScript or SQL. Amounts travel as JSON numbers in SAR (the spec), or as
 * its "decimal string" where it says so: a number is turned into halalas once, at the edge, and only
 * the answer turns halalas back into a number or a string.
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

/**
 * The SAR decimal string of whole halalas, two decimals, from the digits (no float on the way): 4950 →
 * "49.50", 5 → "0.05", "-50" → "-0.50". Where the spec answers a "decimal string" (the activation record's
 * prices, charges.csv). A bigint column comes as text and is taken as it is, whatever its size.
 */
export function sarText(halalas: number | string | bigint): string {
  const n = BigInt(halalas); // refuses a fraction: only whole halalas have a 2-decimal text
  const digits = (n < 0n ? -n : n).toString().padStart(3, '0');
  return `${n < 0n ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
