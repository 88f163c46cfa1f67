// The request a piece of work belongs to, carried by async context: the API's request logger opens
// it for each request (src/http/logger.ts), the worker's activity interceptor for each activity of a
// run a request started (./temporal.ts). Every line of the app's logger reads it (logFields), so a
// service's or an activity's line names the request without being handed its id.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';

export interface RequestContext {
  /** The request id (X-Request-Id): the client's when sane, else a new one. */
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it starts, sync or async) as part of request `requestId`. */
export function runInRequest<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** The id of the request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** What every log line adds: `requestId`, `traceId`, `spanId` when known (pino's mixin: a new object each call, pino merges into it). */
export function logFields(): Record<string, string> {
  const requestId = storage.getStore()?.requestId;
  const span = trace.getActiveSpan();
  const fields: Record<string, string> = {};
  if (requestId === undefined && span === undefined) return fields;
  if (requestId !== undefined) fields.requestId = requestId;
  if (span) {
    const context = span.spanContext();
    if (isSpanContextValid(context)) {
      fields.traceId = context.traceId;
      fields.spanId = context.spanId;
    }
  }
  return fields;
}
