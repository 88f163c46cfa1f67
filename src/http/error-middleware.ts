import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errorMessage, languageOf } from './errors';

/** Unknown paths answer the spec's generic NOT_FOUND envelope. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new AppError('NOT_FOUND'));

/**
 * The one place where failures become the envelope. Unknown failures are logged
 * with their stack and answered as INTERNAL_ERROR with nothing internal in the body.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const appError = toAppError(err);
  if (appError.code === 'INTERNAL_ERROR') req.log?.error({ err }, 'unhandled error');
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
