/**
 * The process telemetry of an app server child, as src/main.ts has it: loaded with `--require` before the
 * server module (the way OpenTelemetry's Node.js documentation loads its set-up), so the SDK registers
 * whatever it instruments before express and pg are loaded. The parent chooses with BENCH_TELEMETRY and
 * the standard OTEL_* variables it passes (lib/servers.ts): `defaults` (metrics on, tracing off, nothing
 * configured) or `tracing` (an OTLP endpoint and a sampling ratio as well).
 */
import { startTelemetry, type Telemetry } from '../../src/telemetry/start';
import { benchConfig } from './app';

export const telemetry: Telemetry | undefined = process.env.BENCH_TELEMETRY ? startTelemetry(benchConfig(), 'api') : undefined;

/** The file the parent hands to `--require`. */
export const TELEMETRY_PRELOAD = __filename;
