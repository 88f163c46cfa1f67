import { z } from '../openapi/registry';
import { halalasOf } from '../lib/money';

/**
 * Request field types whose OpenAPI rendering says exactly what the server
 * accepts, so generated clients and fuzzers build only values the server takes
 * and the server refuses everything the document refuses.
 *
 * - Lengths count characters (Unicode code points) as JSON Schema and
 *   PostgreSQL do, not UTF-16 units as JavaScript's `length` does.
 * - "Not blank" is a pattern listing exactly the characters String.prototype.trim
 *   removes (a generic `\S` differs between regex engines).
 * - Formats the server checks with its own rule (e-mail) are published as that
 *   rule's pattern rather than a `format` other tools interpret differently.
 * - Free text never holds U+0000: PostgreSQL text cannot store it.
 */

export const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** No NUL anywhere. */
export const NO_NUL = '^[^\\u0000]*$';
/** No NUL, and a character that trim() keeps. */
export const NOT_BLANK = `^[^\\u0000]*[^${TRIMMED}\\u0000][^\\u0000]*$`;
const noNul = new RegExp(NO_NUL);
const notBlank = new RegExp(NOT_BLANK);

export const charCount = (s: string) => [...s].length;

const lengthMessage = (min: number, max: number) => (min === max ? `Must be ${min} characters` : `Must be ${min}-${max} characters`);

/** A string of min..max characters, as given (tokens, keys, versions). */
export function chars(min: number, max: number, message = lengthMessage(min, max)) {
  return z
    .string()
    .refine((s) => charCount(s) >= min && charCount(s) <= max, message)
    .refine((s) => noNul.test(s), 'Must not contain NUL characters')
    .openapi({ minLength: min, maxLength: max, pattern: NO_NUL });
}

/**
 * Our optional `Idempotency-Key` request header on a create (the spec names none): a client that lost the
 * answer repeats the request with the same key and gets the one result. `answers` says what, for the document.
 */
export function idempotencyKeyHeader(answers: string) {
  return z.object({
    'Idempotency-Key': chars(8, 128, 'Idempotency-Key must be 8-128 characters')
      .optional()
      .openapi({ description: `Same key and same body ${answers}; scoped to the caller` }),
  });
}

/** A non-empty opaque string of any length (provider tokens): no NUL. */
export function nonEmpty(message: string) {
  return z.string().min(1, message).regex(noNul, 'Must not contain NUL characters').openapi({ minLength: 1, pattern: NO_NUL });
}

/** Text a person typed (names): min..max characters, not blank, stored trimmed. */
export function text(min: number, max: number, what = 'Text') {
  return z
    .string()
    .refine((s) => charCount(s) <= max, `${what} must be at most ${max} characters`)
    .refine((s) => charCount(s) >= min && notBlank.test(s), `${what} is required (and must not contain NUL characters)`)
    .transform((s) => s.trim())
    .openapi({ minLength: Math.max(min, 1), maxLength: max, pattern: NOT_BLANK });
}

/** Self-service phones are Saudi E.164: +966 and 9 digits. */
export const SAUDI_PHONE = '^\\+966\\d{9}$';
export const SaudiPhone = z
  .string()
  .regex(new RegExp(SAUDI_PHONE), 'Phone must be a Saudi E.164 number: +966 followed by 9 digits')
  .openapi({ example: '+966501234567' });

/** Any E.164 number (company-staged accounts): + and 7 to 15 digits, the create-user rule. */
export const E164_PHONE = '^\\+[1-9]\\d{6,14}$';
export const E164Phone = z
  .string()
  .regex(new RegExp(E164_PHONE), 'Phone must be an E.164 number: + and 7 to 15 digits')
  .openapi({ example: '+966501234567' });

/**
 * An RFC 5322 dot-atom address (no quoted local parts, no address literals) with a
 * DNS domain: letters, digits and `!#$%&'*+/=?^_\`{|}~-` in the local part, dots
 * between atoms; labels of 1-63 letters, digits and inner hyphens; a letter TLD.
 * At most 254 characters. Stored lower-cased.
 */
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
export const EMAIL = `^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+[A-Za-z]{2,63}$`;
export const Email = z
  .string()
  .max(254, 'E-mail must be at most 254 characters')
  .regex(new RegExp(EMAIL), 'Invalid e-mail address')
  .transform((v) => v.toLowerCase())
  .openapi({ maxLength: 254, pattern: EMAIL, example: 'sara@example.com' });

const HEX = '[0-9a-fA-F]';
export const UUID_SOURCE = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;

/** Years 1000-9999: PostgreSQL, V8 and toISOString all agree on four-digit years there. */
const YEAR = '[1-9][0-9]{3}';
/** Gregorian leap years in 1000-9999: divisible by 4 but not by 100, or by 400 (1200, 1600, 2000, 2400, ...). */
const LEAP_YEAR = '(?:[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)';
/** Every real month-day except 29 February, which LEAP_YEAR adds. */
const MONTH_DAY = '(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)';
/** A real calendar date, 1000-01-01 to 9999-12-31. */
export const DATE = `(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
/** T00:00:00 to T23:59:59, optionally 1-6 fraction digits (the server issues ms, or µs when a row has them). */
export const TIME_OF_DAY = 'T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,6})?';
/**
 * An instant with `Z` or an offset up to ±14:00 (the widest in use; PostgreSQL refuses beyond ±15:59).
 * Kept as text and compared by PostgreSQL, so nothing is lost or shifted out of range on the way.
 */
export const INSTANT_PATTERN = `^${DATE}${TIME_OF_DAY}(?:Z|[+-](?:0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)$`;
export const Instant = z
  .string()
  .regex(new RegExp(INSTANT_PATTERN), 'Must be an ISO 8601 date-time (YYYY-MM-DDTHH:MM:SS[.ffffff] and Z or ±HH:MM)')
  .openapi({ format: 'date-time', example: '2026-05-01T00:00:00.000Z' });

const UUID = new RegExp(`^${UUID_SOURCE}$`);
/** Any 8-4-4-4-12 hex UUID: ids from paths and provider metadata are checked before they reach SQL. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** Any 8-4-4-4-12 hex UUID (JSON Schema's `uuid` format), not only RFC 9562 versions. */
export const Uuid = z.guid({ message: 'Must be a UUID' }).openapi({ format: 'uuid' });

/**
 * A path id on a route whose spec lists no VALIDATION_ERROR for it: any string, so a malformed id answers
 * like an unknown one (the route's NOT_FOUND, null or an empty list). Where the spec lists VALIDATION_ERROR
 * the route takes `Uuid` instead, and a malformed id is a VALIDATION_ERROR on the parameter.
 */
export const PathId = z.string().openapi({ description: 'A UUID; anything else answers as an unknown one' });

/** JSON Schema for "a phone or an e-mail, or both" (refinements are invisible to the document; this states them). */
export const PHONE_OR_EMAIL = { anyOf: [{ required: ['phone'] }, { required: ['email'] }] };

/** The largest B2B amount (fundingSar, payment amountSar): 99999999.99 SAR. */
export const MAX_SAR = 99_999_999.99;

/**
 * A positive SAR amount as a JSON number, at most `max`, with at most 2 decimals in its shortest
 * round-trip form (halalasOf): 5000.005 and 0.001 are refused, never rounded. Both rules judge the value
 * as sent. Parsed to integer halalas: handlers never see the float.
 */
export function SarAmount(max = MAX_SAR) {
  return z
    .number()
    .refine((n) => n > 0 && n <= max, `Must be a positive amount of at most ${max}`)
    .refine((n) => halalasOf(n) !== null, 'Must have at most 2 decimals')
    .transform((n, ctx) => {
      const halalas = halalasOf(n);
      if (halalas === null) {
        // Unreachable after the refinements (zod stops at them); kept so a value is never invented.
        ctx.addIssue({ code: 'custom', message: 'Must have at most 2 decimals' });
        return z.NEVER;
      }
      return halalas;
    })
    .openapi({ type: 'number', exclusiveMinimum: 0, maximum: max, multipleOf: 0.01, description: 'SAR, at most 2 decimals' });
}
