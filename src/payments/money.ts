import Decimal from 'decimal.js';

/**
 * Minor units per major unit, by ISO 4217 currency (2 unless listed). Every payment the service holds is
 * in a 2-decimal currency: the migration MoneyUnits refused the listed ones when it converted amounts.
 */
const EXPONENT: Record<string, number> = { JPY: 0, KWD: 3, BHD: 3, OMR: 3, JOD: 3 };

/**
 * A decimal amount string ("49.00") in integer minor units ("4900"), exact:
 * decimal arithmetic, never float multiplication. Throws when the amount has
 * more precision than the currency allows.
 */
export function toMinorUnits(amount: string, currency: string): bigint {
  const exponent = EXPONENT[currency.toUpperCase()] ?? 2;
  const minor = new Decimal(amount).times(new Decimal(10).pow(exponent));
  if (!minor.isInteger()) throw new Error(`${amount} ${currency} has more than ${exponent} decimals`);
  return BigInt(minor.toFixed(0));
}

/** Integer minor units back to a fixed-point decimal string. */
export function fromMinorUnits(minor: bigint | number | string, currency: string): string {
  const exponent = EXPONENT[currency.toUpperCase()] ?? 2;
  return new Decimal(String(minor)).div(new Decimal(10).pow(exponent)).toFixed(exponent);
}
