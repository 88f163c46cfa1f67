// The worker's telemetry, started as worker/main.ts loads (its first import): the SDK registers its
// instrumentations before http and pg are loaded by anything else.
import { startTelemetryFor } from './start';

export const telemetry = startTelemetryFor(require.resolve('../../worker/main'), 'worker');
