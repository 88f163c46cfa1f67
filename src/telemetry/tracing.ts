// Tracing, configured as OpenTelemetry's SDK reads it: the standard OTEL_* variables
// (docs/configuration.md "Telemetry"). Two of our own rules on top:
//
// - Tracing is on only when there is somewhere to send spans: OTEL_TRACES_EXPORTER names an exporter, or
//   (unset) an OTLP endpoint is configured. Off, nothing is registered and a request pays nothing for it
//   (the SDK's own default would be an OTLP exporter to localhost, sending every span nowhere).
// - Unset, OTEL_TRACES_SAMPLER is `parentbased_traceidratio` at OTEL_TRACES_SAMPLER_ARG (default 0.1):
//   a trace begun upstream is kept or dropped as its parent says, one begun here is kept one time in ten.
//
// Spans leave the process through withoutPersonalData (./redact.ts), whatever made them.
import type { Resource } from '@opentelemetry/resources';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { OTLP_PROTOCOLS } from '../config';
import { withoutPersonalData } from './redact';

/** The share of traces begun here that are kept when OTEL_TRACES_SAMPLER is unset. */
export const DEFAULT_SAMPLE_RATIO = 0.1;

type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

type Env = Record<string, string | undefined>;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The exporters spans go to, from OTEL_TRACES_EXPORTER (or an OTLP endpoint); empty: tracing is off. */
export function tracesExporters(env: Env): Array<'otlp' | 'console'> {
  const named = list(env.OTEL_TRACES_EXPORTER);
  if (named.includes('none')) return [];
  if (named.length > 0) return [...new Set(named)].filter((name): name is 'otlp' | 'console' => name === 'otlp' || name === 'console');
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? ['otlp'] : [];
}

/** The sampler OTEL_TRACES_SAMPLER names (the specification's names), with its OTEL_TRACES_SAMPLER_ARG; ours when unset. */
export function samplerOf(env: Env): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(env.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(env.OTEL_TRACES_SAMPLER_ARG));
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default: {
      const share = env.OTEL_TRACES_SAMPLER_ARG === undefined ? DEFAULT_SAMPLE_RATIO : Number(env.OTEL_TRACES_SAMPLER_ARG);
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(share) });
    }
  }
}

/** The OTLP exporter of the protocol configured (default http/protobuf); it reads its endpoint, headers and timeout itself. */
function otlpExporter(env: Env): SpanExporter {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf') as OtlpProtocol;
  // Required here, not imported above: only a process that exports loads an exporter (grpc's is heavy).
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (protocol === 'grpc')
    return new (
      require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')
    ).OTLPTraceExporter();
  if (protocol === 'http/json')
    return new (
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
    ).OTLPTraceExporter();
  return new (
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
  ).OTLPTraceExporter();
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * The span processor for the exporters configured: batched (OTEL_BSP_* are read by the processor), the
 * console's at once. `exporter` (tests) replaces them. Undefined: tracing is off.
 */
export function spanProcessor(env: Env, exporter?: SpanExporter): SpanProcessor | undefined {
  if (exporter) return new SimpleSpanProcessor(withoutPersonalData(exporter));
  const processors = tracesExporters(env).map((name) =>
    name === 'console'
      ? new SimpleSpanProcessor(withoutPersonalData(new ConsoleSpanExporter()))
      : new BatchSpanProcessor(withoutPersonalData(otlpExporter(env))),
  );
  return processors.length > 1 ? fanOut(processors) : processors[0];
}

/** One processor handing each span to several (OTEL_TRACES_EXPORTER=otlp,console): Temporal's workflow sink takes one. */
function fanOut(processors: SpanProcessor[]): SpanProcessor {
  const all = async (fn: (p: SpanProcessor) => Promise<void>) => void (await Promise.all(processors.map(fn)));
  return {
    onStart: (span, parent) => processors.forEach((p) => p.onStart(span, parent)),
    onEnd: (span) => processors.forEach((p) => p.onEnd(span)),
    forceFlush: () => all((p) => p.forceFlush()),
    shutdown: () => all((p) => p.shutdown()),
  };
}

/** Where a traced process's spans go, and the resource they carry: Temporal's workflow spans join them (./temporal.ts). */
export interface Tracing {
  processor: SpanProcessor;
  resource: Resource;
}

let active: Tracing | undefined;

/** The process's tracing, once started (./start.ts); undefined while tracing is off. */
export function activeTracing(): Tracing | undefined {
  return active;
}

export function setActiveTracing(tracing: Tracing | undefined): void {
  active = tracing;
}
