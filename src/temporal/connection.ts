import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

export interface TemporalHandle {
  client: Client;
  connection: Connection;
  /** Resolves when the frontend answers a health check. */
  ready(): Promise<void>;
}

/**
 * A lazy connection: the API starts and serves reads even while Temporal is
 * away; calls that need it fail (and the route answers) when it is.
 */
export function connectTemporal(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): TemporalHandle {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  return {
    client,
    connection,
    async ready() {
      await connection.ensureConnected();
      await connection.workflowService.getSystemInfo({});
    },
  };
}
