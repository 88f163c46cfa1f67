import Decimal from 'decimal.js';

/**
 * The one money module: every conversion between an amount and its integer units is here (issue 35:
 * a rule lives in one file). Inside, money is whole minor units of its currency; an amount is read into
 * them once, at the edge, and only an answer turns them back into a JSON number or a decimal string.
 *
 * - SAR in halalas: every `*_halalas` column (packages, orders, order items, roster entries, company
 *   charges, contracts, quotes), read from the spec's SAR numbers (halalasOf) and answered as SAR
 *   numbers (sarOf) or its "decimal string" (sarText).
 * - A payment's `amount_minor`: minor units of its own `currency` (toMinorUnits, fromMinorUnits).
 * - The store (spec "Gate and currencies"): charges in US cents (`*_usd_cents`), a display price in
 *   minor units of the display currency (`display_minor`), `priceUsd × ratePerUsd` rounded half-up
 *   (displayMinor); both answered as JSON numbers (amountOf).
 *
 * Every currency the service holds has 2 decimals (the migration MoneyUnits refused the others), so a
 * minor unit is a hundredth wherever no currency is named. The database renders one text itself, the
 * billing entry's `amountSar` (SQL `halalas_sar_text`, src/db/functions/): the same digits as sarText.
 * Column suffixes and units: docs/decisions/money.md.
 */

// --- Currencies ------------------------------------------------------------------------------------

/** Store display currencies, USD first (it never needs a rate). */
export const DISPLAY_CURRENCIES = ['USD', 'SAR', 'AED', 'EUR', 'GBP', 'EGP'] as const;
export type DisplayCurrency = (typeof DISPLAY_CURRENCIES)[number];

/** The currencies the FX schedule fetches a rate for (every display currency but USD), alphabetical. */
export const FX_CURRENCIES = ['AED', 'EGP', 'EUR', 'GBP', 'SAR'] as const;
export type FxCurrency = (typeof FX_CURRENCIES)[number];

export const isDisplayCurrency = (code: string): code is DisplayCurrency => (DISPLAY_CURRENCIES as readonly string[]).includes(code);
export const isFxCurrency = (code: string): code is FxCurrency => (FX_CURRENCIES as readonly string[]).includes(code);

/**
 * Minor units per major unit, by ISO 4217 currency (2 unless listed). Every payment the service holds is
 * in a 2-decimal currency: the migration MoneyUnits refused the listed ones when it converted amounts.
 */
const EXPONENT: Record<string, number> = { JPY: 0, KWD: 3, BHD: 3, OMR: 3, JOD: 3 };
const exponentOf = (currency: string): number => EXPONENT[currency.toUpperCase()] ?? 2;

/** Decimals of the currencies the service holds (SAR, USD and the display currencies): a minor unit is 1/100. */
const DECIMALS = 2;

// --- JSON numbers (the spec's amounts) -------------------------------------------------------------

/**
 * Whole minor units of a 2-decimal amount, or null when it has more than 2 decimals or is not finite:
 * never rounded. The number is read as its shortest round-trip decimal form (JavaScript's String(n):
 * the digits JSON.parse read, "5000.005", "0.07", "1e-8"), exactly, with decimal.js: no tolerance that
 * grows with the amount (5000.005 × 100 is 500000.49999999994 in floats), and no tiny amount rounded to 0.
 */
export function minorUnitsOf(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const exact = new Decimal(amount);
  return exact.decimalPlaces() <= DECIMALS ? exact.times(10 ** DECIMALS).toNumber() : null;
}

/** Whole halalas of a SAR number (minorUnitsOf: the incoming B2B amounts, SarAmount). */
export const halalasOf = minorUnitsOf;

/** A JSON amount from whole minor units: minor / 100, the nearest double to the 2-decimal amount (JSON prints 1234.5 for 1234.50). */
export function amountOf(minor: number | string | bigint, unit = 'minor units'): number {
  const n = typeof minor === 'number' ? minor : Number(minor);
  if (!Number.isSafeInteger(n)) throw new Error(`not a whole number of ${unit}: ${String(minor)}`);
  return n / 10 ** DECIMALS;
}

/** SAR number for the wire, from halalas (a bigint column may come as text). */
export const sarOf = (halalas: number | string | bigint): number => amountOf(halalas, 'halalas');

// --- Decimal strings -------------------------------------------------------------------------------

/**
 * A decimal amount string ("49.00") in integer minor units of its currency ("4900"), exact: decimal
 * arithmetic, never float multiplication. Throws when the amount has more precision than the currency allows.
 */
export function toMinorUnits(amount: string, currency: string): bigint {
  const exponent = exponentOf(currency);
  const minor = new Decimal(amount).times(new Decimal(10).pow(exponent));
  if (!minor.isInteger()) throw new Error(`${amount} ${currency} has more than ${exponent} decimals`);
  return BigInt(minor.toFixed(0));
}

/** Integer minor units back to the currency's fixed-point decimal string ("1005" KWD → "1.005"). */
export function fromMinorUnits(minor: bigint | number | string, currency: string): string {
  const exponent = exponentOf(currency);
  return new Decimal(String(minor)).div(new Decimal(10).pow(exponent)).toFixed(exponent);
}

/**
 * The SAR decimal string of whole halalas, two decimals, from the digits (no float on the way): 4950 →
 * "49.50", 5 → "0.05", "-50" → "-0.50". Where the spec answers a "decimal string" (the activation record's
 * prices, charges.csv). A bigint column comes as text and is taken as it is, whatever its size.
 */
export function sarText(halalas: number | string | bigint): string {
  const n = BigInt(halalas); // refuses a fraction: only whole halalas have a 2-decimal text
  const digits = (n < 0n ? -n : n).toString().padStart(DECIMALS + 1, '0');
  return `${n < 0n ? '-' : ''}${digits.slice(0, -DECIMALS)}.${digits.slice(-DECIMALS)}`;
}

// --- The store: US cents, display prices, rates ----------------------------------------------------

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
