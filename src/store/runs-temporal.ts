// The store's two processes on a Temporal client: its orders (StoreOrderRuns) and its catalog syncs
// (StoreSyncRuns), the ports of ./runs.ts.
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import { startOnce } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { STORE_ORDER_WORKFLOW_TYPE, storeOrderWorkflowId, type StoreOrderWorkflow } from '../../workflows/contracts/store-order-contract';
import {
  STORE_SYNC_ALL_WORKFLOW_TYPE,
  STORE_SYNC_WORKFLOW_TYPE,
  type StoreCatalogSyncAllWorkflow,
  type StoreCatalogSyncWorkflow,
} from '../../workflows/contracts/store-sync-contract';
import { STORE_SYNC_ALL_WORKFLOW_ID, storeSyncWorkflowId } from '../../workflows/contracts/store-sync-contract';
import { storeOrderInput, type StoreOrderRuns, type StoreOrderRunsConfig, type StoreSyncRuns } from './runs';

/**
 * The StoreOrderRuns port on a Temporal client. The order's first run is started with REJECT_DUPLICATE
 * (one run per order; a start that finds it counts as made). An admin requeue is a pending signal with
 * start (src/workflow-signals: a new run once the last one finished).
 */
export function createStoreOrderRuns(
  client: Client,
  config: StoreOrderRunsConfig,
  opts: { startDeadlineMs?: number } = {},
): StoreOrderRuns {
  const attributes = (orderId: string, userId: string) =>
    config.TEMPORAL_SEARCH_ATTRIBUTES
      ? new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.OrderId, value: orderId },
          { key: SEARCH_ATTRIBUTES.UserId, value: userId },
        ])
      : undefined;

  return {
    async start({ orderId, userId }, late) {
      await startOnce(
        client,
        () =>
          client.workflow.start<StoreOrderWorkflow>(STORE_ORDER_WORKFLOW_TYPE, {
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowId: storeOrderWorkflowId(orderId),
            // A run started late by the relay keeps the payment deadline of the order's creation.
            args: [storeOrderInput(config, orderId, { paymentTtlMs: config.STORE_ORDER_PAYMENT_TTL - (late?.ageMs ?? 0) })],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            typedSearchAttributes: attributes(orderId, userId),
          }),
        opts.startDeadlineMs,
      );
    },
  };
}

export type StoreSyncRunsConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES'>;

/** A sync that runs longer than this is ended by Temporal (it would otherwise keep the id taken for good). */
const SYNC_TIMEOUT = '30 minutes';

/**
 * The StoreSyncRuns port on a Temporal client. Id policies: ALLOW_DUPLICATE (a provider is synced again
 * and again) with USE_EXISTING (a start that finds its sync running joins it instead of doubling it).
 */
export function createStoreSyncRuns(client: Client, config: StoreSyncRunsConfig, opts: { startDeadlineMs?: number } = {}): StoreSyncRuns {
  const common = {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowExecutionTimeout: SYNC_TIMEOUT,
  };
  // USE_EXISTING: a start that finds its sync running joins it (startOnce also reads "already started" as started).
  const started = async (workflowId: string, start: () => Promise<unknown>) => {
    await startOnce(client, start, opts.startDeadlineMs);
    return { workflowId };
  };

  return {
    syncProvider(provider) {
      const workflowId = storeSyncWorkflowId(provider.id);
      return started(workflowId, () =>
        client.workflow.start<StoreCatalogSyncWorkflow>(STORE_SYNC_WORKFLOW_TYPE, {
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
        client.workflow.start<StoreCatalogSyncAllWorkflow>(STORE_SYNC_ALL_WORKFLOW_TYPE, {
          ...common,
          workflowId: STORE_SYNC_ALL_WORKFLOW_ID,
          args: [{ searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES }],
        }),
      );
    },
  };
}
