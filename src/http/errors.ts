import { errorCodes, type ErrorCode } from './error-codes';

export type Language = 'en' | 'ar';

/**
 * A failure the spec names. Domain code throws it; the error middleware turns
 * it into the envelope. `status` overrides the table for the few codes whose
 * status depends on the route (AUTH_PHONE_EXISTS is 401 on register, 409 on
 * change-phone).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: ErrorCode, opts: { details?: unknown; status?: number; message?: string } = {}) {
    super(opts.message ?? code);
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? errorCodes[code].status;
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

/** `Accept-Language: ar-SA,en;q=0.8` -> `ar`. Anything but Arabic first is English. */
export function languageOf(acceptLanguage: string | undefined): Language {
  const first = acceptLanguage?.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('ar') ? 'ar' : 'en';
}
