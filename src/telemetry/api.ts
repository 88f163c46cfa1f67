// The API's telemetry, started as src/main.ts loads (its first import): the SDK registers its
// instrumentations before express and pg are loaded by anything else.
import { startTelemetryFor } from './start';

export const telemetry = startTelemetryFor(require.resolve('../main'), 'api');
