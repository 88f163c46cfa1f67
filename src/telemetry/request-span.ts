// The API request's server span, made by the request log (src/http/logger.ts) while tracing is on.
//
// Not OpenTelemetry's HTTP server instrumentation: to give every event listener of the request and the
// answer the request's context, it wraps both emitters' listener methods and every listener, on every
// request, sampled or not. That cost 20-30 µs a request, most of what tracing cost the API
// (docs/benchmarks.md, "The per-request floor"), and nothing here needs it: the span is ended by
// reference when the answer closes, and the request's async work inherits the context from
// context.with. What it keeps of the instrumentation: the trace context read from the incoming headers
// (OTEL_PROPAGATORS), the sampler's decision, the stable HTTP conventions' name and attributes, and
// `error` for a 5xx. Left out on purpose: the client's address and user agent (the audit trail counts
// both as personal data) and the path of a request no route took (it may be anything a client typed).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { activeTracing } from './tracing';

const tracer = trace.getTracer('activation-sys/http');

/** Requests that make no span: the probes and the metrics scrape, each polled every few seconds. */
const UNTRACED = new Set(['/healthz', '/readyz']);

export interface RequestSpan {
  span: Span;
  /** The request's context with its span: what the request's work runs in. */
  context: Context;
}

const pathOf = (req: IncomingMessage) => (req.url ?? '').split('?')[0];

/** The span of `req`, a child of the trace context it carries; undefined while tracing is off, or for a probe. */
export function startRequestSpan(req: IncomingMessage): RequestSpan | undefined {
  if (!activeTracing() || UNTRACED.has(pathOf(req))) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` in the request's context when it has a span. */
export function inRequestSpan<T>(traced: RequestSpan | undefined, fn: () => T): T {
  return traced ? context.with(traced.context, fn) : fn();
}

/** Ends the span when the answer is done: named by the route that answered (undefined: none did). */
export function endRequestSpan(traced: RequestSpan, req: IncomingMessage, res: ServerResponse, route: string | undefined): void {
  const { span } = traced;
  if (span.isRecording()) {
    const method = req.method ?? 'GET';
    span.setAttributes({
      'http.request.method': method,
      'url.scheme': (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http',
      'network.protocol.version': req.httpVersion,
      'http.response.status_code': res.statusCode,
      ...(route ? { 'http.route': route, 'url.path': pathOf(req) } : {}),
    });
    if (route) span.updateName(`${method} ${route}`);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
  }
  span.end();
}
