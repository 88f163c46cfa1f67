// The API's telemetry, started as src/main.ts loads (its first import): the instrumentations first,
// before http, express and pg are loaded by anything else.
import './instrument';
import { startTelemetryFor } from './start';

export const telemetry = startTelemetryFor(require.resolve('../main'), 'api');
