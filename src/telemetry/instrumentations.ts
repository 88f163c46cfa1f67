// What a traced process patches: Node's HTTP client (the card processor's library), pg and fetch (undici,
// whose diagnostics channel every other outbound provider call goes through: src/providers/http.ts).
// Built only when tracing is on (./start.ts); off, none is registered and a request pays nothing for it.
//
// Not the HTTP server nor Express: the API request's span is made by the request log
// (./request-span.ts, which says why), and is named by route template there.
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

export function requestInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({
      disableIncomingRequestInstrumentation: true,
      // A client call outside any request or activity (a relay's poll, the SDK metrics read) is not worth a trace.
      requireParentforOutgoingSpans: true,
    }),
    // Statements inside a request or an activity; the relays' polls alone would flood the traces.
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    // Provider calls (operators, identity, SMS, the store's partner, FX) are client spans carrying the trace on.
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}
