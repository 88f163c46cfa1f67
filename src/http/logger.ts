import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * Paths that never reach a log line: credentials, codes, tokens, cookies and
 * personal data, wherever they appear in a logged object.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.token', '*.otp', '*.password', '*.secret', '*.clientSecret',
  '*.phone', '*.newPhone', '*.email', '*.mobileNumber', '*.idNumber', '*.link', '*.walletToken',
  '*.to', '*.text',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'activation-sys' } }, destination);
}

/** Query strings can carry tokens or contact data: log the path only. */
function pathOnly(url: string | undefined): string {
  return (url ?? '').split('?')[0] ?? '';
}

/**
 * One JSON line per request with a request id (reused from X-Request-Id when
 * sane). The line holds only id, method, path, status and time, fixed by the
 * serializers below, so it is written by a sibling logger without the wildcard
 * redaction (the costliest part of logging a request). Anything else is
 * logged through the app's redacting logger, never through `req.log`.
 */
export function requestLogger(logger: Logger) {
  const lineLogger = pino({ level: logger.level, base: { service: 'activation-sys' } }, streamOf(logger));
  return pinoHttp({
    logger: lineLogger,
    quietReqLogger: true,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w-]{8,64}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: pathOnly(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      error: (err: { name?: string }) => ({ type: err?.name ?? 'Error' }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    // Failures are logged in full, redacted, by the error middleware; the line names the type only.
    customAttributeKeys: { err: 'error' },
    wrapSerializers: false,
  });
}

/** The destination a pino logger writes to, so a sibling logger can share it. */
function streamOf(logger: Logger): pino.DestinationStream {
  return (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
}
