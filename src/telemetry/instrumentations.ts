// What a traced process patches: Node's HTTP server and client, Express's routers, pg and fetch (undici,
// whose diagnostics channel every outbound provider call goes through: src/providers/http.ts). Built
// only when tracing is on (./start.ts); off, none is registered and a request pays nothing for it.
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

/** Requests that make no span: the probes and the metrics scrape, each polled every few seconds. */
const UNTRACED = ['/healthz', '/readyz'];

export function requestInstrumentations({ untraced = [] }: { untraced?: string[] } = {}): Instrumentation[] {
  const skipped = new Set([...UNTRACED, ...untraced]);
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => skipped.has((req.url ?? '').split('?')[0]),
      // A client call outside any request or activity (a relay's poll, the SDK metrics read) is not worth a trace.
      requireParentforOutgoingSpans: true,
    }),
    // Routers and route handlers make spans and name the request's span by route template; the app-wide
    // middleware (headers, request log, body parsers) would only add noise.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // Statements inside a request or an activity; the relays' polls alone would flood the traces.
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    // Provider calls (operators, identity, SMS, the store's partner, FX) are client spans carrying the trace on.
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}
