/**
 * Issue 31: "With tracing off (no exporter, or `OTEL_SDK_DISABLED=true`) no instrumentation is registered
 * and a request pays nothing for it", and "Metrics a team expects from a Node service: the runtime
 * (event-loop delay, GC, heap, CPU)". The process telemetry started as the API's boot module starts it, in
 * a process of its own (test/fixtures/telemetry-probe.ts), under three environments.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DIST } from '../helpers/stack';

interface Probe {
  tracing: boolean;
  patched: { http: boolean; pg: boolean; fetch: boolean };
  recording: boolean;
  families: string[];
}

function probe(env: NodeJS.ProcessEnv): Probe {
  const result = spawnSync(process.execPath, [path.join(DIST, 'test/fixtures/telemetry-probe.js')], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Probe;
}

const NOTHING_PATCHED = { http: false, pg: false, fetch: false };
const RUNTIME_SERIES = [
  'nodejs_eventloop_delay_p99',
  'nodejs_eventloop_utilization',
  'v8js_memory_heap_used',
  'process_cpu_time_total',
  'process_memory_usage',
];

it('registers no instrumentation and records no span with nothing configured, and serves the runtime metrics', () => {
  const off = probe({});
  expect(off).toMatchObject({ tracing: false, patched: NOTHING_PATCHED, recording: false });
  expect(off.families).toEqual(expect.arrayContaining(RUNTIME_SERIES));
});

it('instruments the HTTP client and fetch once an OTLP endpoint is set, and never pg (statements have spans of their own)', () => {
  // Nothing listens there: the probe's span is dropped at shutdown, after one short attempt.
  const on = probe({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    OTEL_EXPORTER_OTLP_TIMEOUT: '200',
    OTEL_TRACES_SAMPLER: 'always_on',
  });
  expect(on).toMatchObject({ tracing: true, patched: { http: true, pg: false, fetch: true }, recording: true });
});

it('turns every signal off with OTEL_SDK_DISABLED=true, an endpoint set or not', () => {
  const disabled = probe({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' });
  expect(disabled).toEqual({ tracing: false, patched: NOTHING_PATCHED, recording: false, families: [] });
});
