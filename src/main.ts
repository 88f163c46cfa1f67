/**
 * The API process: validates configuration, opens Postgres (embedded when no
 * DATABASE_URL), runs committed migrations, connects to Temporal lazily, listens.
 */
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { openDatabase, schemaStepFor } from './db/database';
import { createLogger } from './http/logger';
import { createProviders } from './providers';
import { createActivationWorkflows } from './temporal/activations';
import { createCompanyRuns } from './temporal/companies';
import { connectTemporal } from './temporal/connection';
import { createPaymentWorkflows } from './temporal/payments';
import { createQuoteRuns } from './temporal/quotes';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const providers = createProviders(config, logger);
  const database = await openDatabase(config, { schema: schemaStepFor(config, 'migrate'), logger });
  const { db } = database;
  const temporal = connectTemporal(config);
  const app = createApp({
    config,
    logger,
    db,
    messages: providers.messages,
    operators: providers.operators,
    temporalReady: () => temporal.ready(),
    activationWorkflows: createActivationWorkflows(temporal.client, config),
    paymentWorkflows: createPaymentWorkflows(temporal.client, config),
    companyRuns: createCompanyRuns(temporal.client, config, { logger }),
    quoteRuns: createQuoteRuns(temporal.client, config, { db }),
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info({ url: `http://${config.HOST}:${config.PORT}`, docs: `http://${config.HOST}:${config.PORT}/docs` }, 'API listening');
  });
  const stop = async () => {
    await (app.locals.stop as () => Promise<void>)();
    await temporal.connection.close().catch(() => undefined);
    await database.close();
    process.exit(0);
  };
  const shutdown = () => {
    logger.info('API stopping');
    // A failure while stopping is printed and ends the process with 1, like a failed start.
    server.close(() => void stop().catch(fail));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/** A refused configuration prints its message alone (each setting named); anything else is logged, redacted. */
function fail(err: unknown): void {
  if (err instanceof ConfigError) console.error(err.message);
  else createLogger('info').fatal({ err }, 'API failed');
  process.exit(1);
}

main().catch(fail);
