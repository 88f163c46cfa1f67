import { readFileSync } from 'node:fs';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, type TLSConfig } from '@temporalio/client';
import { ConfigError, temporalUsesTls, type Config, type TemporalTlsSettings } from '../config';
import { temporalClientInterceptors } from '../telemetry/temporal';
import { dataConverterFromConfig } from './codec';

/**
 * How long one attempt at starting a run waits: the API's own attempt before it answers the client,
 * and the start relay's per start. A start that does not answer in time stays pending (src/workflow-starts).
 */
export const START_DEADLINE_MS = 3_000;

/**
 * One attempt at starting a run, within `deadlineMs`. A start that finds its run already there (the start
 * relay or an earlier attempt whose answer was lost started it, or it closed under an id policy that refuses
 * a second) counts as started: each workflow id names one business thing.
 */
export async function startOnce(client: Client, start: () => Promise<unknown>, deadlineMs = START_DEADLINE_MS): Promise<void> {
  try {
    await client.withDeadline(Date.now() + deadlineMs, start);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

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
/** Where Temporal is and how to reach it; the TLS settings are optional (unset: plaintext, the local dev server). */
export type TemporalConnectionConfig = Pick<Config, 'TEMPORAL_ADDRESS'> & TemporalTlsSettings;

/** What both the API's client (Connection) and the worker (NativeConnection) connect with. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

/**
 * The address, TLS (the server's CA, the client certificate and key for mTLS, the name the server's
 * certificate carries) and the API key, from the configuration. The files are read here, at start: an
 * unreadable one stops start-up, naming its setting. The namespace goes with each call (the client sets
 * the `temporal-namespace` header Temporal Cloud routes by).
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig): TemporalConnectionOptions {
  if (!temporalUsesTls(config)) return { address: config.TEMPORAL_ADDRESS };
  const tls: TLSConfig = {};
  if (config.TEMPORAL_TLS_CA_FILE) tls.serverRootCACertificate = readPem(config.TEMPORAL_TLS_CA_FILE, 'TEMPORAL_TLS_CA_FILE');
  if (config.TEMPORAL_TLS_CERT_FILE && config.TEMPORAL_TLS_KEY_FILE) {
    tls.clientCertPair = {
      crt: readPem(config.TEMPORAL_TLS_CERT_FILE, 'TEMPORAL_TLS_CERT_FILE'),
      key: readPem(config.TEMPORAL_TLS_KEY_FILE, 'TEMPORAL_TLS_KEY_FILE'),
    };
  }
  if (config.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = config.TEMPORAL_TLS_SERVER_NAME;
  return { address: config.TEMPORAL_ADDRESS, tls, ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}) };
}

function readPem(file: string, setting: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  ${setting}: cannot read ${file} (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

export function connectTemporal(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'NODE_ENV' | 'TEMPORAL_PAYLOAD_KEYS'> & TemporalTlsSettings,
): TemporalHandle {
  const connection = Connection.lazy(temporalConnectionOptions(config));
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
