// Metrics: one OpenTelemetry MeterProvider per process, read in Prometheus text format by a listener
// of its own (serveMetrics), never by the API's public port: a scrape is outside the API's rate
// limit and authentication because it never reaches the API, and it is kept from the public by
// where the listener is bound (METRICS_HOST / METRICS_PORT, docs/configuration.md).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/** The Prometheus text format's content type (version 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsRegistry {
  meter: Meter;
  /** The current values in Prometheus text format (observable gauges are read now). */
  text: () => Promise<string>;
  shutdown: () => Promise<void>;
}

/**
 * A reader pulled by its text() (Prometheus text, read on demand by the listener of serveMetrics): the
 * process gives it to its NodeSDK (./start.ts), a test to a MeterProvider of its own.
 */
export function prometheusReader(): { reader: PrometheusExporter; text: () => Promise<string> } {
  const reader = new PrometheusExporter({ preventServerStart: true });
  // No scope labels on every series (one meter per library); target_info keeps the service name.
  const serializer = new PrometheusSerializer('', false, undefined, false, true);
  return {
    reader,
    async text() {
      const { resourceMetrics } = await reader.collect();
      return serializer.serialize(resourceMetrics);
    },
  };
}

/**
 * A MeterProvider of its own, not registered globally: a test or the bench builds one and hands its
 * meter to the app without touching process state.
 */
export function createMetricsRegistry({ serviceName, resource }: { serviceName: string; resource?: Resource }): MetricsRegistry {
  const { reader, text } = prometheusReader();
  const provider = new MeterProvider({
    resource: resource ?? resourceFromAttributes({ 'service.name': serviceName }),
    readers: [reader],
  });
  return { meter: provider.getMeter('activation-sys'), text, shutdown: () => provider.shutdown() };
}

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one the system gave for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * A listener that answers GET `path` with `text()` and 404 otherwise. A failure to read the metrics
 * answers 500 with a comment line (Prometheus marks the scrape failed).
 */
export function serveMetrics(opts: { host: string; port: number; path: string; text: () => Promise<string> }): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== opts.path || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    opts.text().then(
      (body) => res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`# metrics not read: ${String(err)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** A loopback port nothing listens on now (for the Temporal SDK's own exporter, read only by this process). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The worker's one exposition: its own metrics, then the Temporal SDK's (the runtime's Prometheus
 * exporter on a loopback port, `sdkUrl`). A family both name is kept from ours only (target_info),
 * so the text stays valid; an SDK exporter that does not answer leaves ours alone.
 */
export function withSdkMetrics(ours: () => Promise<string>, sdkUrl: string): () => Promise<string> {
  return async () => {
    const [own, sdk] = await Promise.all([
      ours(),
      fetch(sdkUrl, { signal: AbortSignal.timeout(5_000) })
        .then((res) => (res.ok ? res.text() : ''))
        .catch(() => ''),
    ]);
    const names = new Set([...own.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    const kept = sdk.split('\n').filter((line) => {
      const name = /^(?:# (?:HELP|TYPE|UNIT) )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)?.[1];
      return name === undefined || ![...names].some((n) => name === n || name.startsWith(`${n}_`));
    });
    return `${own.trimEnd()}\n${kept.join('\n')}`;
  };
}
