// A process's telemetry, from its configuration: tracing (./tracing.ts) and a metrics registry
// (./metrics.ts) whose listener the process starts once it runs (serveMetrics). Started by the boot
// modules (./api.ts, ./worker.ts) when their process's entry runs, never by a test that imports the
// app or the worker: tests build what they need from ./tracing.ts and ./metrics.ts.
import { loadConfig, type Config } from '../config';
import { leaveUntraced } from './instrument';
import { createMetricsRegistry, serveMetrics, type MetricsRegistry, type MetricsServer } from './metrics';
import { startTracing, type Tracing } from './tracing';

export type ProcessRole = 'api' | 'worker';

export interface Telemetry {
  serviceName: string;
  tracing: Tracing;
  metrics: MetricsRegistry;
  /** Starts the metrics listener on `port` (METRICS_HOST, METRICS_PATH) serving `text` (default: the registry's); none when METRICS_ENABLED=false. */
  serveMetrics: (port: number, text?: () => Promise<string>) => Promise<MetricsServer | undefined>;
  /** Exports the spans still pending; stops the metrics listener it started. */
  shutdown: () => Promise<void>;
}

export function startTelemetry(config: Config, role: ProcessRole): Telemetry {
  const serviceName = config.OTEL_SERVICE_NAME ?? `activation-sys-${role}`;
  const tracing = startTracing({
    serviceName,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    otlpHeaders: config.OTEL_EXPORTER_OTLP_HEADERS,
    exportDelayMs: config.OTEL_BSP_SCHEDULE_DELAY,
  });
  const metrics = createMetricsRegistry({ serviceName, resource: tracing.resource });
  leaveUntraced(config.METRICS_PATH);
  let server: MetricsServer | undefined;
  return {
    serviceName,
    tracing,
    metrics,
    serveMetrics: async (port, text = metrics.text) => {
      if (!config.METRICS_ENABLED) return undefined;
      server = await serveMetrics({ host: config.METRICS_HOST, port, path: config.METRICS_PATH, text });
      return server;
    },
    shutdown: async () => {
      await server?.close();
      await Promise.all([tracing.shutdown(), metrics.shutdown()]);
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
