// Tracing: a tracer provider registered with the OpenTelemetry API, async-context propagation in the
// process and W3C trace context across it (HTTP headers, Temporal headers). Spans are made whether or
// not they are exported, so every log line can name its trace; they leave the process only through
// the OTLP exporter, when OTEL_EXPORTER_OTLP_ENDPOINT says where (or an exporter a test hands in).
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, TracerProvider, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP collector base URL (spans go to `<url>/v1/traces`); unset: spans are not exported. */
  otlpEndpoint?: string;
  /** Headers for the collector (e.g. an API key), `key=value,key2=value2` as OTEL_EXPORTER_OTLP_HEADERS. */
  otlpHeaders?: string;
  /** How long ended spans wait to be exported together (ms). */
  exportDelayMs?: number;
  /** Instead of OTLP: where spans go (tests). */
  exporter?: SpanExporter;
}

export interface Tracing {
  resource: Resource;
  /** Where ended spans go: the batch processor in front of the exporter (workflow spans join it too). */
  processor: SpanProcessor;
  /** Exports what is pending, then unregisters everything it registered. */
  shutdown(): Promise<void>;
}

/** `key=value,key2=value2` (values URL-encoded, as the OpenTelemetry environment variables write them). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return headers;
}

/** Registers the tracer provider, the context manager and the propagators with the OpenTelemetry API. */
export function startTracing(opts: TracingOptions): Tracing {
  const resource = resourceFromAttributes({ 'service.name': opts.serviceName });
  const exporter =
    opts.exporter ??
    (opts.otlpEndpoint
      ? new OTLPTraceExporter({
          url: `${opts.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`,
          headers: parseOtlpHeaders(opts.otlpHeaders),
        })
      : undefined);
  const processor: SpanProcessor = exporter
    ? new BatchSpanProcessor({ exporter, scheduledDelayMillis: opts.exportDelayMs ?? 5_000 })
    : new NoopSpanProcessor();
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  return {
    resource,
    processor,
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
