// Which keys name a credential or a person's contact data: their values never reach a log line
// (src/http/logger.ts) nor a span attribute (src/telemetry/redact.ts).

/**
 * Keys whose values never reach a log line, at any depth (`err.raw.payment_method.billing_details.email`,
 * `b.c.email`, an array of them). Keys are compared lower-cased without `_` and `-` (`client_secret`,
 * `clientSecret` and `Set-Cookie` all match): message fields by name, personal data by how the name
 * ends (`email`, `receipt_email`, `newPhone`), credentials by any name containing the word.
 */
export const REDACTED_KEYS = ['otp', 'link', 'to', 'text'];
export const REDACTED_KEY_ENDINGS = ['email', 'phone', 'phoneNumber', 'mobileNumber', 'msisdn', 'idNumber'];
export const REDACTED_KEY_PARTS = ['token', 'password', 'secret', 'authorization', 'cookie', 'apiKey', 'privateKey'];

const normalize = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
const censoredKeys = new Set(REDACTED_KEYS.map(normalize));
const censoredEndings = REDACTED_KEY_ENDINGS.map(normalize);
const censoredParts = REDACTED_KEY_PARTS.map(normalize);

/** Whether a value under `key` never reaches a log line nor a span attribute. */
export function isCensored(key: string): boolean {
  const name = normalize(key);
  return censoredKeys.has(name) || censoredEndings.some((end) => name.endsWith(end)) || censoredParts.some((part) => name.includes(part));
}
