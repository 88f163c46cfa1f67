/**
 * `npm run migrate`: applies the committed migrations (src/db/migrations) to DATABASE_URL (the embedded
 * PostgreSQL when unset) and exits. Safe to run from several places at once: migrations run under a
 * Postgres advisory lock, so a second command waits for the first and then finds nothing left to apply.
 * In production the API and the worker never migrate: they wait for the schema this command brings.
 */
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { createLogger } from '../http/logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL).child({ name: 'migrate' });
  const database = await openDatabase(config, { schema: 'migrate', logger });
  await database.close();
  logger.info({ applied: database.migrated ?? [] }, 'migrations applied');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    else createLogger('info').fatal({ err }, 'migrate failed');
    process.exit(1);
  },
);
