import { randomUUID } from 'node:crypto';
import type { Meter } from '@opentelemetry/api';
import type { Request, RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import { isCensored } from '../lib/censored-keys';
import { logFields, runInRequest } from '../telemetry/context';
import { endRequestSpan, inRequestSpan, startRequestSpan } from '../telemetry/request-span';

const CENSOR = '[redacted]';
/** Deeper than any object we log; beyond it a value is replaced rather than walked. */
const MAX_DEPTH = 16;

/**
 * A copy of `value` with every censored key's value replaced, walked the way JSON.stringify would
 * see it. Errors become `{ type, message, stack, ...own fields, cause }` (so an error's `raw`, as
 * card-processor errors carry, is walked too); binary data (a Temporal payload's bytes, which may
 * hold encoded personal data) is logged as its length only.
 */
export function redact(value: unknown, depth = 0, ancestors = new Set<object>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (ancestors.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  ancestors.add(value);
  try {
    if (value instanceof Error) return redactFields(errorFields(value), depth, ancestors);
    if (Array.isArray(value)) return value.map((item: unknown) => redact(item, depth + 1, ancestors));
    const json = (value as { toJSON?: unknown }).toJSON;
    if (typeof json === 'function') return redact(json.call(value), depth + 1, ancestors);
    return redactFields(value as Record<string, unknown>, depth, ancestors);
  } finally {
    ancestors.delete(value);
  }
}

function redactFields(fields: Record<string, unknown>, depth: number, ancestors: Set<object>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    copy[key] = field !== undefined && field !== null && isCensored(key) ? CENSOR : redact(field, depth + 1, ancestors);
  }
  return copy;
}

function errorFields(err: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { type: err.constructor.name || err.name, message: err.message, stack: err.stack };
  Object.assign(fields, err);
  if (err.cause !== undefined) fields.cause = err.cause;
  if (err instanceof AggregateError) fields.errors = err.errors;
  return fields;
}

/**
 * The app's logger: every logged object goes through `redact` (pino's own `redact` paths reach
 * one level per wildcard only). Errors are shaped by `redact` too, so pino's error serializer
 * is replaced by the identity. The per-request line does not come through here (requestLogger).
 * Every line names the request and trace it was written in, when there is one (`requestId`,
 * `traceId`, `spanId`, read from async context: src/telemetry/context.ts).
 */
let stdout: pino.DestinationStream | undefined;

/**
 * The process's standard output, written asynchronously and shared by its loggers: one write(2) carries
 * the lines of every request that ended while the last write was under way, instead of one per line
 * (pino's own advice for throughput; docs/benchmarks.md, "The per-request floor"). pino flushes it on
 * exit, so a process that stops or fails still ends its log with its last line; only a SIGKILL can lose
 * the lines of its last milliseconds.
 */
export function stdoutDestination(): pino.DestinationStream {
  return (stdout ??= asyncDestination(1));
}

/**
 * The largest write(2) the log makes. pino's stream (sonic-boom) appends each line to the chunk it keeps
 * while a write is under way and measures that whole chunk again (Buffer.byteLength) at every line: at
 * its default of 16 KiB that took 3.1 µs a line, at 4 KiB 1.3 µs, still one write(2) per ~25 access
 * lines under load (docs/benchmarks.md, "The per-request floor").
 */
const LOG_WRITE_BYTES = 4096;

/** An asynchronous log destination (a file descriptor or a path), as the API and the worker write theirs. */
export function asyncDestination(dest: number | string): pino.DestinationStream {
  return pino.destination({ dest, sync: false, maxWrite: LOG_WRITE_BYTES });
}

export function createLogger(level: string, destination: pino.DestinationStream = stdoutDestination()): Logger {
  return pino(
    {
      level,
      base: { service: 'activation-sys' },
      mixin: logFields,
      formatters: { log: (fields) => redactFields(fields, 0, new Set()) },
      serializers: { err: (err: unknown) => err },
    },
    destination,
  );
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

/** Upper bounds of the request duration buckets, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** The route label of a request no route matched (404s, 405s, docs assets): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template that answered (`/b2b/quotes/:id`), never the raw path: the raw path would make
 * a series per id (cardinality) and can hold personal data.
 */
function routeOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? req.baseUrl + route.path : UNMATCHED_ROUTE;
}

/**
 * One JSON line per request, `{ req: { id, method, path }, res: { statusCode }, responseTime }`
 * (and `traceId` when tracing is on), with a request id reused from X-Request-Id when sane and
 * echoed back. Tracing on, it also makes the request's server span (src/telemetry/request-span.ts). The line holds only those fields, so it is written by a sibling logger without the
 * redaction walk; anything else goes through the app's redacting logger (also `req.log`). The rest
 * of the request runs in its request context (src/telemetry/context.ts), so every line logged on
 * its behalf carries `requestId`; with a meter, each request is counted and timed by route template
 * (`http_server_request_duration_seconds`).
 *
 * Written here rather than with pino-http: that library builds a child logger per request
 * (its `req.log`), which was about 7% of the CPU of GET /auth/session in the bench profile,
 * for a line that needs none of it.
 */
export function requestLogger(logger: Logger, opts: { meter?: Meter } = {}): RequestHandler {
  const lineLogger = pino({ level: logger.level, base: { service: 'activation-sys' } }, streamOf(logger));
  const duration = opts.meter?.createHistogram('http_server_request_duration_seconds', {
    unit: 's',
    description: 'Duration of the API answers, by method, route template and status',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    req.log = logger;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    // Tracing on: the request's server span, whose trace the line names.
    const traced = startRequestSpan(req);
    const traceId = traced?.span.spanContext().traceId;
    const line = (msg: string) => {
      const elapsed = performance.now() - started;
      const fields = {
        req: { id, method: req.method, path: pathOnly(req.originalUrl ?? req.url) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(elapsed),
        ...(traceId ? { traceId } : {}),
      };
      if (res.statusCode >= 500) lineLogger.error(fields, msg);
      else lineLogger.info(fields, msg);
      const route = routeOf(req);
      duration?.record(elapsed / 1000, {
        'http.request.method': req.method,
        'http.route': route,
        'http.response.status_code': res.statusCode,
      });
      if (traced) endRequestSpan(traced, req, res, route === UNMATCHED_ROUTE ? undefined : route);
    };
    res.once('close', () => line(res.writableFinished ? 'request completed' : 'request aborted'));
    inRequestSpan(traced, () => runInRequest(id, next));
  };
}

/** The destination a pino logger writes to, so a sibling logger can share it. */
function streamOf(logger: Logger): pino.DestinationStream {
  return (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
}
