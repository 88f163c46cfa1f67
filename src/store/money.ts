import Decimal from 'decimal.js';

/**
 * Store money (spec "Gate and currencies"). Charges are in USD; a display price is
 * `priceUsd × ratePerUsd`, rounded half-up to 2 decimals, computed in integer minor units. Every
 * display currency has 2 decimals, so one minor unit is 1/100 everywhere here. Amounts are integers
 * (cents, or the display currency's minor units) from the column to the edge; only the answer turns
 * them into a JSON number (amountOf), and only an incoming amount is read back (minorUnitsOf).
 */

/** Display currencies, USD first (it never needs a rate). */
export const DISPLAY_CURRENCIES = ['USD', 'SAR', 'AED', 'EUR', 'GBP', 'EGP'] as const;
export type DisplayCurrency = (typeof DISPLAY_CURRENCIES)[number];

/** The currencies the FX schedule fetches a rate for (every display currency but USD), alphabetical. */
export const FX_CURRENCIES = ['AED', 'EGP', 'EUR', 'GBP', 'SAR'] as const;
export type FxCurrency = (typeof FX_CURRENCIES)[number];

export const isDisplayCurrency = (code: string): code is DisplayCurrency => (DISPLAY_CURRENCIES as readonly string[]).includes(code);
export const isFxCurrency = (code: string): code is FxCurrency => (FX_CURRENCIES as readonly string[]).includes(code);

/** The card processor's minimum charge: USD 0.50. */
export const MIN_CHARGE_USD_CENTS = 50;

/** Digits kept of a fetched rate (the snapshot column's scale). */
export const RATE_SCALE = 10;
/** A rate above this is not a currency per dollar but a feed's mistake (the column holds 10 digits before the point). */
const MAX_RATE = new Decimal('9999999999');

const HalfUp = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP, precision: 60 });

/** The display price in minor units of the currency: cents × rate, half-up to a whole minor unit. Exact (decimal.js, no float). */
export function displayMinor(priceUsdCents: number, ratePerUsd: string): number {
  return new HalfUp(priceUsdCents).times(new HalfUp(ratePerUsd)).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/** A JSON amount from minor units: minor / 100, the nearest double to the 2-decimal amount. */
export function amountOf(minor: number): number {
  if (!Number.isSafeInteger(minor)) throw new Error(`not a whole number of minor units: ${minor}`);
  return minor / 100;
}

/**
 * Minor units of an incoming amount, or null when it has more than 2 decimals (judged by the number's
 * shortest round-trip form, as SarAmount does) or is not finite: never rounded.
 */
export function minorUnitsOf(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const exact = new Decimal(amount);
  return exact.decimalPlaces() <= 2 ? exact.times(100).toNumber() : null;
}

/**
 * A fetched rate as the snapshot stores it: a positive decimal text with at most RATE_SCALE decimals
 * (half-up beyond), or null when it is not a usable rate (zero or less, not a number, rounds to zero, absurdly large).
 */
export function normalizeRate(value: number | string): string | null {
  let rate: Decimal;
  try {
    rate = new HalfUp(value);
  } catch {
    return null;
  }
  if (!rate.isFinite() || rate.lte(0)) return null;
  const rounded = rate.toDecimalPlaces(RATE_SCALE, Decimal.ROUND_HALF_UP);
  if (rounded.lte(0) || rounded.gt(MAX_RATE)) return null;
  return rounded.toFixed();
}

/** A rate as the answer carries it: a JSON number (the stored text has at most 10 decimals). */
export const rateNumber = (rate: string): number => Number(rate);
