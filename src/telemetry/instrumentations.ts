// What a traced process patches: Node's HTTP client (the card processor's library) and fetch (undici,
// whose diagnostics channel every other outbound provider call goes through: src/providers/http.ts).
// Built only when tracing is on (./start.ts); off, none is registered and a request pays nothing for it.
//
// Not the HTTP server, Express nor pg: the API request's span is made by the request log
// (./request-span.ts) and each statement's by the data interface (src/db/statement-span.ts), which say why.
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

export function requestInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({
      disableIncomingRequestInstrumentation: true,
      // A client call outside any request or activity (a relay's poll, the SDK metrics read) is not worth a trace.
      requireParentforOutgoingSpans: true,
    }),
    // Provider calls (operators, identity, SMS, the store's partner, FX) are client spans carrying the trace on.
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}
