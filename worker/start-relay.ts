// The start relay as the worker runs it (src/workflow-starts/relay.ts is the loop): on its own Temporal
// client, with the starters of every area that starts runs through pending starts. Composed here, in the
// worker, so that src/workflow-starts depends on none of those areas.
import type { Logger } from 'pino';
import { createActivationRuns, type ActivationRunsConfig } from '../src/activations/runs-temporal';
import { activationStarter } from '../src/activations/start';
import { createCompanyRuns, type CompanyRunsConfig } from '../src/companies/runs-temporal';
import type { Config } from '../src/config';
import type { Db } from '../src/db/sql';
import { createQuoteRuns, type QuoteRunsConfig } from '../src/quotes/runs-temporal';
import type { StoreOrderRunsConfig } from '../src/store/runs';
import { createStoreOrderRuns } from '../src/store/runs-temporal';
import { runOnOwnClient } from '../src/temporal/connection';
import { workflowStarters } from '../src/workflow-starts/kinds';
import { createStartRelay } from '../src/workflow-starts/relay';

export type StartRelayConfig = ActivationRunsConfig &
  CompanyRunsConfig &
  QuoteRunsConfig &
  StoreOrderRunsConfig &
  Pick<
    Config,
    | 'TEMPORAL_ADDRESS'
    | 'TEMPORAL_NAMESPACE'
    | 'TEMPORAL_PAYLOAD_KEYS'
    | 'NODE_ENV'
    | 'START_RELAY_BATCH_SIZE'
    | 'START_RELAY_POLL_SECONDS'
    | 'START_RELAY_MAX_BACKOFF_SECONDS'
  >;

/** The relay as the worker runs it, on its own Temporal client with the API's starters. Stop it before closing the pool. */
export function startStartRelay(config: StartRelayConfig, deps: { db: Db; logger: Logger }): { stop(): Promise<void> } {
  const logger = deps.logger.child({ component: 'start-relay' });
  const running = runOnOwnClient(config, (client) =>
    createStartRelay({
      db: deps.db,
      starters: workflowStarters({
        activation: activationStarter({ db: deps.db, runs: createActivationRuns(client, config), config }),
        companies: createCompanyRuns(client, config, { db: deps.db, logger }),
        quotes: createQuoteRuns(client, config, { db: deps.db }),
        storeOrders: createStoreOrderRuns(client, config),
      }),
      logger,
      batchSize: config.START_RELAY_BATCH_SIZE,
      pollIntervalMs: config.START_RELAY_POLL_SECONDS * 1000,
      maxBackoffMs: config.START_RELAY_MAX_BACKOFF_SECONDS * 1000,
    }),
  );
  deps.logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'start relay running');
  return running;
}
