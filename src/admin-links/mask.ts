import type { LinkChannel } from '../entities';

/**
 * What the admin link list shows of where a link went. Contacts are personal data: the list never
 * shows them whole. Pure functions, so the rules are tested without a database.
 */

/** A fixed count, so the mask says nothing about the length of what it hides. */
export const BULLETS = '•'.repeat(5);
/** Export and reissue-expired hand the raw link to the company, not to the person. */
export const COMPANY_CHANNEL = 'company_channel';
/** A phone keeps this many leading characters (`+` and the first digits: `+966`, `+447`)… */
const PHONE_PREFIX = 4;
/** …only when at least this many characters are hidden between prefix and the last two digits. */
const PHONE_MIN_HIDDEN = 4;

/** `•••••@example.com`: the domain stays, the local part is five bullets whatever its length. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? BULLETS : `${BULLETS}${email.slice(at)}`;
}

/**
 * `+966•••••67`: the first four characters, five bullets, the last two digits. A number too short to
 * hide at least four characters that way keeps only its first character (the `+`).
 */
export function maskPhone(phone: string): string {
  const prefix = phone.length - PHONE_PREFIX - 2 >= PHONE_MIN_HIDDEN ? phone.slice(0, PHONE_PREFIX) : phone.slice(0, 1);
  return `${prefix}${BULLETS}${phone.slice(-2)}`;
}

/**
 * The masked destination of a link by its channel: `email` the e-mail, `sms` the phone, `email_sms`
 * both joined by ` / ` (e-mail first), `export` the literal `company_channel`. Null when the channel
 * was not recorded (links minted before the column existed) or the person no longer has that contact.
 */
export function maskedDestination(channel: LinkChannel | null, contact: { email: string | null; phone: string | null }): string | null {
  const email = contact.email === null ? null : maskEmail(contact.email);
  const phone = contact.phone === null ? null : maskPhone(contact.phone);
  switch (channel) {
    case null:
      return null;
    case 'export':
      return COMPANY_CHANNEL;
    case 'email':
      return email;
    case 'sms':
      return phone;
    case 'email_sms': {
      const both = [email, phone].filter((v): v is string => v !== null);
      return both.length > 0 ? both.join(' / ') : null;
    }
  }
}
