import { z } from '../openapi/registry';

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
 */

const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** Contains a character that trim() keeps. */
export const NOT_BLANK = `[^${TRIMMED}]`;
const notBlank = new RegExp(NOT_BLANK);

export const charCount = (s: string) => [...s].length;

const lengthMessage = (min: number, max: number) => (min === max ? `Must be ${min} characters` : `Must be ${min}-${max} characters`);

/** A string of min..max characters, as given (tokens, keys, versions). */
export function chars(min: number, max: number, message = lengthMessage(min, max)) {
  return z
    .string()
    .refine((s) => charCount(s) >= min && charCount(s) <= max, message)
    .openapi({ minLength: min, maxLength: max });
}

/** Text a person typed (names): min..max characters, not blank, stored trimmed. */
export function text(min: number, max: number, what = 'Text') {
  return z
    .string()
    .refine((s) => charCount(s) <= max, `${what} must be at most ${max} characters`)
    .refine((s) => charCount(s) >= min && notBlank.test(s), `${what} is required`)
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

/** Any 8-4-4-4-12 hex UUID (JSON Schema's `uuid` format), not only RFC 9562 versions. */
export const Uuid = z.guid({ message: 'Must be a UUID' }).openapi({ format: 'uuid' });

/** A path id: any string, so a malformed id answers the route's NOT_FOUND like an unknown one and nothing leaks. */
export const PathId = z.string().openapi({ description: 'A UUID; anything else answers as not found' });
