// A process's telemetry, set up as OpenTelemetry's Node.js documentation does it: one NodeSDK, started
// before the modules it instruments are loaded (the boot modules ./api.ts and ./worker.ts are their
// entries' first imports), configured by the standard OTEL_* variables (./tracing.ts has the two rules
// of ours on top). What it registers:
//
// - tracing on: the request instrumentations (./instrumentations.ts), the sampler and one span
//   processor, which Temporal's interceptors share (./temporal.ts); off: none of them.
// - metrics (METRICS_ENABLED): a Prometheus reader pulled by the process's own listener (serveMetrics),
//   the runtime's series (event loop, GC, heap: instrumentation-runtime-node; CPU and memory of the
//   process: host-metrics) and whatever the process observes on its meter (requests, the pg pool, the
//   relays' backlog).
//
// OTEL_SDK_DISABLED=true turns every signal off, as the specification says: no tracing and no metrics.
import { context, createNoopMeter, metrics, propagation, trace, type Meter, type MeterProvider } from '@opentelemetry/api';
import { HostMetrics } from '@opentelemetry/host-metrics';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadConfig, type Config } from '../config';
import { requestInstrumentations } from './instrumentations';
import { prometheusReader, serveMetrics, type MetricsServer } from './metrics';
import { samplerOf, setActiveTracing, spanProcessor, type Tracing } from './tracing';

export type ProcessRole = 'api' | 'worker';

const NO_METRICS: MeterProvider = { getMeter: () => createNoopMeter() };

export interface Telemetry {
  serviceName: string;
  /** Where ended spans go and the resource they carry; undefined: tracing is off. */
  tracing?: Tracing;
  /** The process's meter (a no-op one when the SDK is disabled or metrics are off). */
  meter: Meter;
  /** Starts the metrics listener on `port` (METRICS_HOST, METRICS_PATH) serving `text` (default: the process's metrics); none when metrics are off. */
  serveMetrics: (port: number, text?: () => Promise<string>) => Promise<MetricsServer | undefined>;
  /** The process's metrics in Prometheus text format (empty when off). */
  metricsText: () => Promise<string>;
  /** Exports the spans still pending, stops the metrics listener, unregisters what it registered. */
  shutdown: () => Promise<void>;
}

type TelemetryConfig = Pick<Config, 'OTEL_SERVICE_NAME' | 'OTEL_SDK_DISABLED' | 'METRICS_ENABLED' | 'METRICS_HOST' | 'METRICS_PATH'>;

export interface TelemetryOptions {
  /** The OTEL_* variables (default: the process's; the SDK's exporters read the process's in any case). */
  env?: Record<string, string | undefined>;
  /** Tests: spans go here (tracing on whatever the variables say). */
  spanExporter?: SpanExporter;
  /** Patch http, express, pg and fetch when tracing is on (default true; a test that needs only the tracer passes false). */
  instrument?: boolean;
}

/** service.name ours by default, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over it, the process and host under it. */
function processResource(serviceName: string): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': serviceName }))
    .merge(detectResources({ detectors: [processDetector, hostDetector, envDetector] }));
}

export function startTelemetry(config: TelemetryConfig, role: ProcessRole, options: TelemetryOptions = {}): Telemetry {
  const env = options.env ?? process.env;
  const serviceName = config.OTEL_SERVICE_NAME ?? `activation-sys-${role}`;
  const metricsOn = config.METRICS_ENABLED && !config.OTEL_SDK_DISABLED;
  const resource = processResource(serviceName);
  const processor = config.OTEL_SDK_DISABLED ? undefined : spanProcessor(env, options.spanExporter);
  const tracing = processor ? { processor, resource } : undefined;
  const prometheus = metricsOn ? prometheusReader() : undefined;

  let unpatch = () => undefined as void;
  if (tracing && options.instrument !== false) {
    // Registered before the SDK starts, and with a no-op meter: their spans are what we want from them,
    // not a second set of duration series.
    unpatch = registerInstrumentations({
      instrumentations: requestInstrumentations(),
      meterProvider: NO_METRICS,
    });
  }
  const sdk = config.OTEL_SDK_DISABLED
    ? undefined
    : new NodeSDK({
        resource,
        autoDetectResources: false,
        spanProcessors: processor ? [processor] : [],
        // Tracing off: no propagator either (null: the SDK registers none); nothing would inject a context.
        ...(tracing ? {} : { textMapPropagator: null }),
        sampler: samplerOf(env),
        metricReaders: prometheus ? [prometheus.reader] : [],
        instrumentations: prometheus ? [new RuntimeNodeInstrumentation()] : [],
        // Logs are pino's, on stdout: no OpenTelemetry log pipeline.
        logRecordProcessors: [],
      });
  sdk?.start();
  if (prometheus) new HostMetrics({ meterProvider: metrics.getMeterProvider(), metricGroups: ['process.cpu', 'process.memory'] }).start();
  setActiveTracing(tracing);

  let server: MetricsServer | undefined;
  const metricsText = prometheus?.text ?? (() => Promise.resolve(''));
  return {
    serviceName,
    tracing,
    meter: metrics.getMeter('activation-sys'),
    metricsText,
    serveMetrics: async (port, text = metricsText) => {
      if (!metricsOn) return undefined;
      server = await serveMetrics({ host: config.METRICS_HOST, port, path: config.METRICS_PATH, text });
      return server;
    },
    shutdown: async () => {
      await server?.close();
      await sdk?.shutdown().catch(() => undefined);
      unpatch();
      setActiveTracing(undefined);
      // The API's globals too, so a test may start telemetry again in the same process.
      for (const api of [trace, metrics, propagation, context]) api.disable();
    },
  };
}

/**
 * The telemetry of the process whose entry is `entry` (its compiled path), or undefined when another
 * module is the entry (a test) or the configuration is refused (the entry reports that itself).
 */
export function startTelemetryFor(entry: string, role: ProcessRole): Telemetry | undefined {
  if (require.main?.filename !== entry) return undefined;
  try {
    return startTelemetry(loadConfig(), role);
  } catch {
    return undefined;
  }
}
