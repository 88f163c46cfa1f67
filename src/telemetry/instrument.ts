// OpenTelemetry's HTTP, Express and pg instrumentations patch those modules as they load, so this
// module must run before anything loads them: the process entries import their boot module
// (./api.ts, ./worker.ts) first, and the boot module imports this one first. It registers the
// instrumentations only; spans go nowhere until ./tracing.ts registers a tracer provider.
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

/** Requests that make no span: the probes and the metrics scrape (each polled every few seconds). */
const untraced = new Set(['/healthz', '/readyz']);

/** Adds a path whose requests make no span (the configured METRICS_PATH). */
export function leaveUntraced(path: string): void {
  untraced.add(path);
}

registerInstrumentations({
  instrumentations: [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => untraced.has((req.url ?? '').split('?')[0]) }),
    // Routers and route handlers make spans, and name the request's span by route template; the
    // app-wide middleware (headers, request log, body parsers) would only add noise.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // Statements inside a request or an activity; the relays' polls alone would flood the traces.
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
  ],
});
