import Decimal from 'decimal.js';

/**
 * The VAT included in a total (spec "Admin: settings", document rendering): total × rate / (100 + rate),
 * rounded half-up to a whole minor unit (halalas for SAR). Pure integer arithmetic: the rate, a JSON
 * number of 0-100 that may carry decimals (12.5, 0.05), is read as the exact decimal it was written as
 * (15.1 is 151/10, never the binary double 15.0999…), so with rate = p / 10^k the VAT is
 * total × p / (100 × 10^k + p), and half-up is floor((2 × total × p + d) / (2 × d)).
 * The total itself never changes: this only says how much of it is VAT.
 */
export function vatIncluded(totalMinor: bigint | number, ratePercent: number): bigint {
  const total = BigInt(totalMinor);
  if (total < 0n) throw new RangeError(`a total cannot be negative: ${total}`);
  if (!Number.isFinite(ratePercent) || ratePercent < 0 || ratePercent > 100) throw new RangeError(`VAT rate out of 0-100: ${ratePercent}`);
  const { numerator, scale } = exactRate(ratePercent);
  const denominator = 100n * scale + numerator;
  return (2n * total * numerator + denominator) / (2n * denominator);
}

/** The rate as numerator / scale with scale a power of ten, from the shortest decimal that round-trips the number. */
function exactRate(ratePercent: number): { numerator: bigint; scale: bigint } {
  const decimal = new Decimal(ratePercent);
  const places = decimal.decimalPlaces();
  return { numerator: BigInt(decimal.times(new Decimal(10).pow(places)).toFixed(0)), scale: 10n ** BigInt(places) };
}

/** The rate as printed on a document: "15", "12.5" (the decimal the settings hold, no float noise). */
export function formatRate(ratePercent: number): string {
  return new Decimal(ratePercent).toFixed();
}
