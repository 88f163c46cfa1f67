import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import pino, { type Logger } from 'pino';

/**
 * Paths that never reach a log line: credentials, codes, tokens, cookies and
 * personal data, wherever they appear in a logged object.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.token',
  '*.otp',
  '*.password',
  '*.secret',
  '*.clientSecret',
  '*.phone',
  '*.newPhone',
  '*.email',
  '*.mobileNumber',
  '*.idNumber',
  '*.link',
  '*.walletToken',
  '*.to',
  '*.text',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'activation-sys' } }, destination);
}

/** Query strings can carry tokens or contact data: log the path only. */
function pathOnly(url: string | undefined): string {
  return (url ?? '').split('?')[0] ?? '';
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id), set by requestLogger. */
    id?: string;
    /** The app's redacting logger, set by requestLogger. */
    log?: Logger;
  }
}

const REQUEST_ID = /^[\w-]{8,64}$/;

/**
 * One JSON line per request, `{ req: { id, method, path }, res: { statusCode }, responseTime }`,
 * with a request id reused from X-Request-Id when sane and echoed back. The line holds only
 * those fields, so it is written by a sibling logger without the wildcard redaction; anything
 * else goes through the app's redacting logger (also `req.log`).
 *
 * Written here rather than with pino-http: that library builds a child logger per request
 * (its `req.log`), which was about 7% of the CPU of GET /auth/session in the bench profile,
 * for a line that needs none of it.
 */
export function requestLogger(logger: Logger): RequestHandler {
  const lineLogger = pino({ level: logger.level, base: { service: 'activation-sys' } }, streamOf(logger));
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    req.log = logger;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    const line = (msg: string) => {
      const fields = {
        req: { id, method: req.method, path: pathOnly(req.originalUrl ?? req.url) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (res.statusCode >= 500) lineLogger.error(fields, msg);
      else lineLogger.info(fields, msg);
    };
    res.once('close', () => line(res.writableFinished ? 'request completed' : 'request aborted'));
    next();
  };
}

/** The destination a pino logger writes to, so a sibling logger can share it. */
function streamOf(logger: Logger): pino.DestinationStream {
  return (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
}
