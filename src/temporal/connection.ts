import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { temporalClientInterceptors } from '../telemetry/temporal';
import { dataConverterFromConfig } from './codec';

/**
 * How long one attempt at starting a run waits: the API's own attempt before it answers the client,
 * and the start relay's per start. A start that does not answer in time stays pending (src/workflow-starts).
 */
export const START_DEADLINE_MS = 3_000;

export interface TemporalHandle {
  client: Client;
  connection: Connection;
  /** Resolves when the frontend answers a health check. */
  ready(): Promise<void>;
}

/**
 * A lazy connection: the API starts and serves reads even while Temporal is
 * away; calls that need it fail (and the route answers) when it is. Every
 * payload the client writes or reads goes through the payload codec (./codec),
 * with the same keys as the worker's.
 */
export function connectTemporal(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'NODE_ENV' | 'TEMPORAL_PAYLOAD_KEYS'>,
): TemporalHandle {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: dataConverterFromConfig(config),
    // The trace and the request id go with each start, signal and update (src/telemetry/temporal.ts).
    interceptors: temporalClientInterceptors(),
  });
  return {
    client,
    connection,
    async ready() {
      await connection.ensureConnected();
      await connection.workflowService.getSystemInfo({});
    },
  };
}

/** A loop that talks to Temporal from the worker process (a relay). */
export interface BackgroundLoop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Starts `build`'s loop on its own lazy client (with the payload codec), so it starts, and keeps its
 * work, whatever state Temporal is in. stop() ends the loop, then closes the connection.
 */
export function runOnOwnClient(
  config: Parameters<typeof connectTemporal>[0],
  build: (client: Client) => BackgroundLoop,
): { stop(): Promise<void> } {
  const temporal = connectTemporal(config);
  const loop = build(temporal.client);
  loop.start();
  return {
    async stop() {
      await loop.stop();
      await temporal.connection.close().catch(() => undefined);
    },
  };
}
