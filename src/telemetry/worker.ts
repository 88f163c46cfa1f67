// The worker's telemetry, started as worker/main.ts loads (its first import): the instrumentations
// first, before http and pg are loaded by anything else.
import './instrument';
import { startTelemetryFor } from './start';

export const telemetry = startTelemetryFor(require.resolve('../../worker/main'), 'worker');
