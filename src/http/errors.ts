import Negotiator from 'negotiator';
import { errorCodes, type ErrorCode } from './error-codes';

export type Language = 'en' | 'ar';

/**
 * A failure the spec names. Domain code throws it; the error middleware turns
 * it into the envelope, with the status from the error table (or the one the
 * route's definition picks for the few codes whose status depends on the route).
 * Nothing else chooses an HTTP status.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: ErrorCode, opts: { details?: unknown; message?: string } = {}) {
    super(opts.message ?? code);
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details;
  }
}

export interface FieldIssue {
  path: string;
  message: string;
}

export function validationError(details: FieldIssue[]): AppError {
  return new AppError('VALIDATION_ERROR', { details });
}

export function errorMessage(code: ErrorCode, lang: Language): string {
  return errorCodes[code][lang];
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(errorCodes, code);
}

const LANGUAGES: readonly Language[] = ['en', 'ar'];

/**
 * Picks `en` or `ar` from an Accept-Language header by q-value, as Express's
 * `req.acceptsLanguages` does: `en;q=0.1, ar` and `ar-SA` are Arabic. English
 * when the header is absent or names neither language (`fr`).
 */
export function languageOf(acceptLanguage: string | undefined): Language {
  const lang = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language(LANGUAGES);
  return lang === 'ar' ? 'ar' : 'en';
}
