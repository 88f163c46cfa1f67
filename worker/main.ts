// The worker process: connects to Temporal, hosts the workflows (bundled from workflows/)
// and the activities (built from their dependencies), and stops cleanly on SIGINT/SIGTERM.
//
// Configuration: the API's (src/config.ts, validated the same way: in production every stand-in
// and development default is refused at start), notably TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_TASK_QUEUE, TEMPORAL_CONNECT_TIMEOUT_MS (the worker may start before the server is
// ready) and LOG_LEVEL. Logs go through the API's redacting logger. Telemetry (src/telemetry):
// spans of runs and activities, and Prometheus text on WORKER_METRICS_PORT.
// First: telemetry instruments http and pg before anything loads them.
import { telemetry } from '../src/telemetry/worker';
import pino from 'pino';
import type { DataConverter } from '@temporalio/common';
import { existsSync } from 'node:fs';
import { NativeConnection, Runtime, Worker, type WorkflowBundlePath, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { ConfigError, loadConfig, type Config } from '../src/config';
import { openDatabase, schemaStepFor, type Database } from '../src/db/database';
import { dataConverterFromConfig } from '../src/temporal/codec';
import { connectTemporal, temporalConnectionOptions, type TemporalConnectionOptions } from '../src/temporal/connection';
import { deleteRetiredSchedules, ensureSchedules } from '../src/temporal/schedules';
import { retiredScheduleIds, scheduleSpecs } from './schedules';
import { createPersonalDataCipher } from '../src/lib/crypto';
import { createPaymentProvider } from '../src/payments/providers';
import { createLogger } from '../src/http/logger';
import { createProviders } from '../src/provider-registry';
import { startMessageRelay } from '../src/messages/relay';
import { createUndeliveredCount } from '../src/messages/undelivered';
import { startInboxRelay } from '../src/webhooks/relay';
import { startStartRelay } from './start-relay';
import { startSignalRelay } from '../src/workflow-signals/relay';
import { forgetOnErasure } from '../src/compliance/forget';
import { observeRelayBacklog } from '../src/telemetry/backlog';
import { freeLoopbackPort, withSdkMetrics } from '../src/telemetry/metrics';
import { activityInterceptors, temporalRuntimeLogger, workflowInterceptorModules, workflowSinks } from '../src/telemetry/temporal';
import { activeTracing, type Tracing } from '../src/telemetry/tracing';
import { observePool } from '../src/telemetry/pool';
import { startWorkerHealth } from './health';
import { storeOrderPayments } from '../src/store';

export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TASK_QUEUE = 'activation-sys';
const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;

export interface StartWorkerOptions {
  address?: string;
  /** TLS (server CA, client certificate and key, server name) and the API key of the connection startWorker opens. */
  tls?: TemporalConnectionOptions['tls'];
  apiKey?: string;
  namespace?: string;
  taskQueue?: string;
  /** An existing connection (e.g. a test environment's nativeConnection); it is not closed on shutdown. */
  connection?: NativeConnection;
  /** How long to keep retrying the first connection. */
  connectTimeoutMs?: number;
  /** Dependencies handed to createActivities. */
  activityDeps: ActivityDeps;
  /** The payload codec and failure converter (src/temporal/codec.ts); the clients must use the same keys. */
  dataConverter: DataConverter;
  /** A prebuilt bundle: in memory (tests bundle once per file) or a file (the image's); default: bundle workflows/ at start. */
  workflowBundle?: WorkflowBundleWithSourceMap | WorkflowBundlePath;
  logger?: pino.Logger;
  /** Stops the connection retry loop early (e.g. a signal before the server was up). */
  signal?: AbortSignal;
  /** Where the runs' and activities' spans go; default: the process's tracing (src/telemetry/start.ts), if on. */
  tracing?: Tracing;
  /**
   * After shutdown starts, how long activities running may take before they are cancelled (SDK default: 0,
   * at once), and after how long the worker gives up waiting and stops anyway (SDK default: never).
   */
  shutdownGraceTimeMs?: number;
  shutdownForceTimeMs?: number;
}

export interface RunningWorker {
  worker: Worker;
  connection: NativeConnection;
  /** Settles when the worker has stopped (rejects if it failed). */
  done: Promise<void>;
  /** Stops polling, lets running tasks finish, closes the connection if startWorker opened it. */
  shutdown(): Promise<void>;
}

/** Connects, retrying with backoff until `timeoutMs` has passed: the server may still be starting. */
export async function connectWithRetry(
  target: string | TemporalConnectionOptions,
  { timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS, logger, signal }: { timeoutMs?: number; logger?: pino.Logger; signal?: AbortSignal } = {},
): Promise<NativeConnection> {
  const options = typeof target === 'string' ? { address: target } : target;
  const { address } = options;
  const deadline = Date.now() + timeoutMs;
  let delayMs = 250;
  let lastLoggedAt = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await NativeConnection.connect(options);
    } catch (error) {
      const now = Date.now();
      if (now + delayMs > deadline) {
        throw new Error(`could not connect to Temporal at ${address} within ${timeoutMs} ms`, { cause: error });
      }
      if (now - lastLoggedAt >= 10_000) {
        lastLoggedAt = now;
        logger?.warn({ address, err: error }, 'Temporal not reachable yet, retrying');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
      delayMs = Math.min(delayMs * 2, 2_000);
    }
  }
}

export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const address = options.address ?? DEFAULT_ADDRESS;
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const logger = options.logger ?? workerLogger('info');
  const tracing = options.tracing ?? activeTracing();

  const ownsConnection = !options.connection;
  const connection =
    options.connection ??
    (await connectWithRetry(
      { address, tls: options.tls, apiKey: options.apiKey },
      { timeoutMs: options.connectTimeoutMs, logger, signal: options.signal },
    ));

  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
      activities: createActivities(options.activityDeps),
      dataConverter: options.dataConverter,
      // A prebuilt bundle has its workflow interceptors built in (src/cli/bundle-workflows.ts).
      interceptors: {
        activity: activityInterceptors(tracing),
        ...(options.workflowBundle ? {} : { workflowModules: workflowInterceptorModules(tracing) }),
      },
      sinks: workflowSinks(tracing),
      ...(options.shutdownGraceTimeMs !== undefined ? { shutdownGraceTime: options.shutdownGraceTimeMs } : {}),
      ...(options.shutdownForceTimeMs !== undefined ? { shutdownForceTime: options.shutdownForceTimeMs } : {}),
    });
  } catch (error) {
    if (ownsConnection) await connection.close().catch(() => undefined);
    throw error;
  }

  const done = worker.run();
  logger.info(
    {
      address,
      namespace,
      taskQueue,
      workflowBundle: options.workflowBundle && 'codePath' in options.workflowBundle ? options.workflowBundle.codePath : undefined,
      shutdownGraceMs: worker.options.shutdownGraceTimeMs,
      shutdownForceMs: worker.options.shutdownForceTimeMs,
    },
    'worker running',
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      try {
        await done;
      } finally {
        if (ownsConnection) await connection.close().catch(() => undefined);
      }
    })();
    return stopping;
  };
  return { worker, connection, done, shutdown };
}

/**
 * The real dependencies of the activities: Postgres, and the operator plugins, identity provider and
 * message sender chosen by configuration (src/providers). Without a logger: the redacting one.
 */
export function buildActivityDeps(
  config: Config,
  database: Pick<Database, 'db'>,
  logger: pino.Logger = createLogger(config.LOG_LEVEL),
): ActivityDeps {
  const { operators, identity, messages, store, fx } = createProviders(config, logger);
  return {
    db: database.db,
    operators,
    storeProviders: store,
    fxSource: fx,
    identity,
    cipher: createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY),
    messages,
    paymentProvider: createPaymentProvider(config),
    storeOrderPayments,
  };
}

/** The API's redacting logger, its lines marked as the worker's. */
function workerLogger(level: string): pino.Logger {
  return createLogger(level).child({ name: 'worker' });
}

/**
 * The Temporal Schedules this service runs (src/temporal/schedules.ts), created or brought up to date
 * once the worker polls, and the retired ones deleted. A failure stops the worker (exit 1): running
 * without them would silently leave housekeeping undone.
 */
/**
 * Owns the schedules in the background until it succeeds: Temporal away at start-up, or going away in the
 * middle of it, delays them (a warning per try, backing off to 30 s) and never ends the worker, whose
 * polls and relays wait for Temporal on their own.
 */
async function ownSchedulesUntilDone(config: Config, logger: pino.Logger, signal: AbortSignal): Promise<void> {
  for (let attempt = 0; !signal.aborted; attempt += 1) {
    try {
      await ownSchedules(config, logger);
      return;
    } catch (err) {
      if (signal.aborted) return;
      logger.warn({ err, attempt }, 'schedules not created or updated yet (Temporal away?); trying again');
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1_000 * 2 ** attempt)).unref());
    }
  }
}

async function ownSchedules(config: Config, logger: pino.Logger): Promise<void> {
  const temporal = connectTemporal(config);
  try {
    const deadline = Date.now() + config.TEMPORAL_CONNECT_TIMEOUT_MS;
    await temporal.client.withDeadline(deadline, async () => {
      await ensureSchedules(temporal.client, scheduleSpecs(config), logger);
      await deleteRetiredSchedules(temporal.client, retiredScheduleIds(config), logger);
    });
  } finally {
    await temporal.connection.close().catch(() => undefined);
  }
}

/** WORKFLOW_BUNDLE_PATH, which must exist: a worker silently bundling at start instead would hide a broken image. */
function prebuiltBundle(file: string): string {
  if (!existsSync(file)) throw new ConfigError(`Invalid configuration:\n  WORKFLOW_BUNDLE_PATH: ${file} does not exist`);
  return file;
}

/** How far start-up got: the health endpoint reports it, the signal handler stops what runs. */
interface WorkerProgress {
  phase: 'OPENING_DATABASE' | 'CONNECTING';
  db?: Database;
  running?: RunningWorker;
}

export async function main(): Promise<void> {
  // Configuration first: an invalid or refused one ends the process before anything starts.
  const config = loadConfig();
  const logger = workerLogger(config.LOG_LEVEL);
  // The SDK's own metrics on a loopback port, served with ours on WORKER_METRICS_PORT (withSdkMetrics).
  const sdkMetricsPort = telemetry && config.METRICS_ENABLED ? await freeLoopbackPort() : undefined;
  // We handle signals ourselves: the SDK's handlers would swallow a signal that arrives
  // while we are still waiting for the server.
  Runtime.install({
    logger: temporalRuntimeLogger(logger),
    shutdownSignals: [],
    ...(sdkMetricsPort
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: `127.0.0.1:${sdkMetricsPort}`,
                countersTotalSuffix: true,
                unitSuffix: true,
                useSecondsForDurations: true,
              },
            },
          },
        }
      : {}),
  });

  const aborter = new AbortController();
  // Set as start-up goes on; the signal handler and the health endpoint may look before the worker runs.
  const state: WorkerProgress = { phase: 'OPENING_DATABASE' };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal, exiting without waiting');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    aborter.abort();
    void state.running?.shutdown();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Up first, so that a worker still waiting for the schema or for Temporal says so (503 starting).
  const health =
    config.WORKER_HEALTH_PORT === undefined
      ? undefined
      : await startWorkerHealth(
          { port: config.WORKER_HEALTH_PORT, host: config.HOST },
          {
            state: () => state.running?.worker.getState() ?? state.phase,
            stopping: () => signals > 0,
            db: () => state.db?.db,
          },
          logger,
        );
  try {
    await runWorker(config, logger, state, aborter.signal, sdkMetricsPort);
  } finally {
    await health?.close();
  }
  logger.info('worker stopped');
}

/** Opens the database (waiting for the schema in production), connects, runs until shutdown; `state` says how far it got. */
async function runWorker(
  config: Config,
  logger: pino.Logger,
  state: WorkerProgress,
  signal: AbortSignal,
  sdkMetricsPort: number | undefined,
): Promise<void> {
  const db = await openDatabase(config, { schema: schemaStepFor(config, 'as-is'), logger });
  state.db = db;
  state.phase = 'CONNECTING';
  const activityDeps = buildActivityDeps(config, db, logger);
  if (telemetry) {
    observeRelayBacklog(telemetry.meter, activityDeps.db);
    observePool(telemetry.meter, activityDeps.db.pool);
    const ours = telemetry.metricsText;
    await telemetry.serveMetrics(
      config.WORKER_METRICS_PORT,
      sdkMetricsPort ? withSdkMetrics(ours, `http://127.0.0.1:${sdkMetricsPort}/metrics`) : ours,
    );
  }
  const running = await startWorker({
    activityDeps,
    dataConverter: dataConverterFromConfig(config),
    // The address with its TLS settings and API key (src/temporal/connection.ts), as the API's client has them.
    ...temporalConnectionOptions(config),
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    connectTimeoutMs: config.TEMPORAL_CONNECT_TIMEOUT_MS,
    ...(config.WORKFLOW_BUNDLE_PATH ? { workflowBundle: { codePath: prebuiltBundle(config.WORKFLOW_BUNDLE_PATH) } } : {}),
    shutdownGraceTimeMs: config.WORKER_SHUTDOWN_GRACE_SECONDS * 1000,
    shutdownForceTimeMs: config.WORKER_SHUTDOWN_FORCE_SECONDS * 1000,
    logger,
    signal,
  });
  state.running = running;
  if (signal.aborted) void running.shutdown();
  // For as long as the worker runs: webhook inbox rows to the settlement workflows, pending starts and
  // pending signals to Temporal, each on its own Temporal client, and one-time codes to the message
  // providers (src/webhooks/relay.ts, src/workflow-starts/relay.ts, src/workflow-signals/relay.ts, src/messages/relay.ts).
  const listeners = [
    startInboxRelay(config, { db: activityDeps.db, logger }),
    startStartRelay(config, { db: activityDeps.db, logger }),
    startSignalRelay(config, { db: activityDeps.db, logger }),
    startMessageRelay(config, {
      db: activityDeps.db,
      sender: activityDeps.messages,
      cipher: activityDeps.cipher,
      undelivered: createUndeliveredCount(),
      logger,
    }),
    // Not a relay: an erasure anywhere makes this process forget the decrypted values it keeps.
    forgetOnErasure({ pool: activityDeps.db.pool, cipher: activityDeps.cipher, logger }),
  ];
  try {
    void ownSchedulesUntilDone(config, logger, signal);
    await running.done;
  } finally {
    await running.shutdown().catch(() => undefined);
    await Promise.all(listeners.map((listener) => listener.stop().catch(() => undefined)));
    await db.close().catch(() => undefined);
    await telemetry?.shutdown().catch(() => undefined);
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof Error && error.name === 'AbortError') process.exit(0);
      // A refused configuration reads as the API's does: the message alone, naming each setting.
      if (error instanceof ConfigError) console.error(error.message);
      else workerLogger('info').fatal({ err: error }, 'worker failed');
      process.exit(1);
    },
  );
}
