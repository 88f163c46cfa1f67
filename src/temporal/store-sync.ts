import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { StoreSyncRuns } from '../store/runs';
import { storeCatalogSyncAllWorkflow, storeCatalogSyncWorkflow } from '../../workflows/store-sync';
import { STORE_SYNC_ALL_WORKFLOW_ID, storeSyncWorkflowId } from '../../workflows/store-sync-contract';
import { START_DEADLINE_MS } from './connection';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export type StoreSyncRunsConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES'>;

/** A sync that runs longer than this is ended by Temporal (it would otherwise keep the id taken for good). */
const SYNC_TIMEOUT = '30 minutes';

/**
 * The StoreSyncRuns port on a Temporal client. Id policies: ALLOW_DUPLICATE (a provider is synced again
 * and again) with USE_EXISTING (a start that finds its sync running joins it instead of doubling it).
 */
export function createStoreSyncRuns(client: Client, config: StoreSyncRunsConfig, opts: { startDeadlineMs?: number } = {}): StoreSyncRuns {
  const deadline = () => Date.now() + (opts.startDeadlineMs ?? START_DEADLINE_MS);
  const common = {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowExecutionTimeout: SYNC_TIMEOUT,
  };
  const started = async (workflowId: string, start: () => Promise<unknown>) => {
    try {
      await client.withDeadline(deadline(), start);
    } catch (err) {
      // Not expected with USE_EXISTING; if a server answers it anyway, the run is there.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return { workflowId };
  };

  return {
    syncProvider(provider) {
      const workflowId = storeSyncWorkflowId(provider.id);
      return started(workflowId, () =>
        client.workflow.start(storeCatalogSyncWorkflow, {
          ...common,
          workflowId,
          args: [{ providerId: provider.id }],
          // Operators find a provider's syncs by `StoreProvider = "<slug>"` in the Temporal UI.
          typedSearchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES
            ? new TypedSearchAttributes([{ key: SEARCH_ATTRIBUTES.StoreProvider, value: provider.slug }])
            : undefined,
        }),
      );
    },

    syncAll() {
      return started(STORE_SYNC_ALL_WORKFLOW_ID, () =>
        client.workflow.start(storeCatalogSyncAllWorkflow, {
          ...common,
          workflowId: STORE_SYNC_ALL_WORKFLOW_ID,
          args: [{ searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES }],
        }),
      );
    },
  };
}
