import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/sql';
import { errorCodes } from './error-codes';
import type { ResponseContract } from './contract';
import { AppError, errorMessage, languageOf } from './errors';
import type { RouteMeta } from './route-meta';

/**
 * The one place where failures become the envelope. The status comes from the
 * error table, or from the route's definition for the codes the table lets a
 * route move. Unknown failures are logged with their stack and answered as
 * INTERNAL_ERROR with nothing internal in the body.
 */
export function createErrorHandler(logger?: Pick<Logger, 'error'>, contract?: ResponseContract): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Too late for an envelope: Express's own handler closes the connection.
    if (res.headersSent) return next(err);
    let appError = toAppError(err);
    // The app logger redacts personal data and credentials wherever they appear in the error.
    if (appError.code === 'INTERNAL_ERROR') (logger ?? req.log)?.error({ err, reqId: req.id }, 'unhandled error');

    const route = res.locals.route as RouteMeta | undefined;
    let status = route ? route.statusOf(appError.code) : errorCodes[appError.code].status;
    let body = envelope(appError, req);
    // Every 503 (Postgres away, a run not answering): nothing was done, and the client may repeat it later.
    if (status === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    // A code or status the route does not declare is a drifting answer: INTERNAL_ERROR instead.
    if (route && contract && !contract.check(route, res, status, body)) {
      appError = new AppError('INTERNAL_ERROR');
      status = 500;
      body = envelope(appError, req);
      res.removeHeader('Retry-After');
    }
    send(res, status, body);
  };
}

/** Without an app logger: logs through req.log when present. */
export const errorHandler: ErrorRequestHandler = createErrorHandler();

function envelope(error: AppError, req: Request) {
  const body: { code: string; message: string; details?: unknown } = {
    code: error.code,
    message: errorMessage(error.code, languageOf(req.headers['accept-language'])),
  };
  if (error.details !== undefined) body.details = error.details;
  return { error: body };
}

function send(res: Response, status: number, body: unknown): void {
  res.status(status).json(body);
}

/** What a 503 asks the client to wait: about as long as a database restart or failover takes. */
export const RETRY_AFTER_SECONDS = 5;

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return new AppError('SERVICE_UNAVAILABLE', { message: 'database unavailable' });
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
