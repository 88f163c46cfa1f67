/**
 * The API process: validates configuration, opens Postgres (embedded when no DATABASE_URL), runs the
 * committed migrations (in production: waits for `npm run migrate` to have run them), connects to Temporal
 * lazily, listens; at SIGTERM, readiness off, then a bounded drain (src/http/drain.ts).
 */
// First: telemetry instruments http, express and pg before anything loads them.
import { telemetry } from './telemetry/api';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { openDatabase, schemaStepFor } from './db/database';
import { drainable } from './http/drain';
import { createLogger } from './http/logger';
import { createProviders } from './provider-registry';
import { createActivationRuns } from './activations/runs-temporal';
import { createCompanyRuns } from './companies/runs-temporal';
import { connectTemporal } from './temporal/connection';
import { createPaymentRuns } from './payments/runs-temporal';
import { createQuoteRuns } from './quotes/runs-temporal';
import { createStoreOrderRuns, createStoreSyncRuns } from './store/runs-temporal';
import { registerConfiguredProviders } from './store/registration';
import { observePool } from './telemetry/pool';
import { temporalSignalSender } from './workflow-signals/temporal';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const providers = createProviders(config, logger);
  const database = await openDatabase(config, { schema: schemaStepFor(config, 'migrate'), logger });
  const { db } = database;
  if (telemetry) observePool(telemetry.meter, db.pool);
  // The real store provider's row, when configured and missing (inactive until staff turn it on).
  await registerConfiguredProviders(db, config);
  const temporal = connectTemporal(config);
  let stopping = false;
  const app = createApp({
    config,
    logger,
    db,
    messages: providers.messages,
    operators: providers.operators,
    identity: providers.identity,
    signalSender: temporalSignalSender(temporal.client),
    temporalReady: () => temporal.ready(),
    activationRuns: createActivationRuns(temporal.client, config),
    paymentRuns: createPaymentRuns(temporal.client, config),
    companyRuns: createCompanyRuns(temporal.client, config, { db, logger }),
    quoteRuns: createQuoteRuns(temporal.client, config, { db }),
    storeProviders: providers.store,
    storeSyncs: createStoreSyncRuns(temporal.client, config),
    storeOrderRuns: createStoreOrderRuns(temporal.client, config),
    meter: telemetry?.meter,
    stopping: () => stopping,
  });
  // Prometheus text on a listener of its own (METRICS_HOST:METRICS_PORT), outside the API's port.
  await telemetry?.serveMetrics(config.METRICS_PORT);
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info({ url: `http://${config.HOST}:${config.PORT}`, docs: `http://${config.HOST}:${config.PORT}/docs` }, 'API listening');
  });
  const drain = drainable(server);
  const close = async () => {
    await (app.locals.stop as () => Promise<void>)();
    await temporal.connection.close().catch(() => undefined);
    await database.close();
    await telemetry?.shutdown();
  };
  const shutdown = async () => {
    const delaySeconds = config.SHUTDOWN_DELAY_SECONDS ?? (config.NODE_ENV === 'production' ? 5 : 0);
    await drain.drain({ delayMs: delaySeconds * 1000, drainMs: config.SHUTDOWN_DRAIN_SECONDS * 1000, logger });
    // Bounded as well: a connection a cut request still holds keeps the pool from ending.
    const closed = await Promise.race([
      close().then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS, false)),
    ]);
    if (!closed) logger.warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'closing the pool and Temporal took too long; exiting');
    logger.info('API stopped');
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    // A failure while stopping is printed and ends the process with 1, like a failed start.
    shutdown().catch(fail);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** How long closing the app's timers, Temporal's connection and the pool may take after the drain. */
const CLOSE_TIMEOUT_MS = 5_000;

/** A refused configuration prints its message alone (each setting named); anything else is logged, redacted. */
function fail(err: unknown): void {
  if (err instanceof ConfigError) console.error(err.message);
  else createLogger('info').fatal({ err }, 'API failed');
  process.exit(1);
}

main().catch(fail);
