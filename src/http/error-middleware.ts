import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, errorMessage, languageOf } from './errors';

/** Unknown paths answer the spec's generic NOT_FOUND envelope. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new AppError('NOT_FOUND'));

/**
 * The one place where failures become the envelope. Unknown failures are logged
 * with their stack and answered as INTERNAL_ERROR with nothing internal in the body.
 */
export function createErrorHandler(logger?: Pick<Logger, 'error'>): ErrorRequestHandler {
  return (err, req, res, next) => handle(err, req, res, next, logger);
}

/** Without an app logger: logs through req.log when present. */
export const errorHandler: ErrorRequestHandler = (err, req, res, next) => handle(err, req, res, next, undefined);

const handle = (
  err: unknown,
  req: Parameters<ErrorRequestHandler>[1],
  res: Parameters<ErrorRequestHandler>[2],
  _next: unknown,
  logger?: Pick<Logger, 'error'>,
) => {
  const appError = toAppError(err);
  // The app logger redacts personal data and credentials wherever they appear in the error.
  if (appError.code === 'INTERNAL_ERROR') (logger ?? req.log)?.error({ err, reqId: req.id }, 'unhandled error');
  const lang = languageOf(req.headers['accept-language']);
  const body: { code: string; message: string; details?: unknown } = {
    code: appError.code,
    message: errorMessage(appError.code, lang),
  };
  if (appError.details !== undefined) body.details = appError.details;
  if (res.headersSent) return;
  res.status(appError.status).json({ error: body });
};

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // body-parser failures: malformed JSON, too large, wrong charset.
  if (isHttpError(err) && err.status >= 400 && err.status < 500) {
    return new AppError('VALIDATION_ERROR', {
      details: [{ path: '', message: err.type === 'entity.too.large' ? 'Request body is too large' : 'Request body is not valid JSON' }],
    });
  }
  return new AppError('INTERNAL_ERROR');
}

function isHttpError(err: unknown): err is { status: number; type?: string } {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}
