import { ChildWorkflowFailure, executeChild, log, ParentClosePolicy, proxyActivities } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { StoreActivities } from '../activities/store';
import {
  storeSyncWorkflowId,
  type StoreSyncAllEntry,
  type StoreSyncAllInput,
  type StoreSyncAllResult,
  type StoreSyncInput,
  type StoreSyncResult,
} from './contracts/store-sync-contract';

// The health check and the list are short; a provider that stays down fails them after a few tries.
const { checkStoreProviderHealth, listStoreProvidersToSync } = proxyActivities<StoreActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

// Listing and writing a catalog is one activity (the list never enters the history); it is idempotent,
// so a transient failure is retried with backoff. A refusal (StoreProviderRejection) is final.
const { syncStoreCatalog } = proxyActivities<StoreActivities>({
  startToCloseTimeout: '10 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['StoreProviderRejection'],
  },
});

/**
 * The catalog sync of one provider, `store-sync:<providerId>` (one at a time: the API starts it with
 * USE_EXISTING, the scheduled sync of all providers as a child that cannot be started twice). Checks
 * the provider's health first (recorded on its row): an unhealthy provider's catalog is left as it is.
 * Then lists and upserts by (provider, sku), deactivating vanished SKUs, never deleting.
 */
export async function storeCatalogSyncWorkflow(input: StoreSyncInput): Promise<StoreSyncResult> {
  const health = await checkStoreProviderHealth({ providerId: input.providerId });
  if (!health.found) return { status: 'not_found', providerId: input.providerId };
  if (!health.ok) {
    log.warn('store provider unhealthy: catalog not synced', { providerId: input.providerId, slug: health.slug, detail: health.detail });
    return { status: 'unhealthy', providerId: input.providerId, slug: health.slug, detail: health.detail };
  }
  const synced = await syncStoreCatalog({ providerId: input.providerId });
  log.info('store catalog synced', { providerId: input.providerId, slug: health.slug, ...synced });
  return { status: 'synced', providerId: input.providerId, slug: health.slug, ...synced };
}

/**
 * Every active provider's catalog, started by the `store-catalog-sync` Schedule (STORE_SYNC_EVERY) and by
 * POST /admin/store/catalog/sync without a provider: one child run per provider, side by side. A provider
 * whose sync is already running is reported, not synced twice; one provider's failure does not stop the others.
 */
export async function storeCatalogSyncAllWorkflow(input: StoreSyncAllInput): Promise<StoreSyncAllResult> {
  const providers = await listStoreProvidersToSync();
  const providersResult = await Promise.all(
    providers.map(async (provider): Promise<StoreSyncAllEntry> => {
      try {
        return await executeChild(storeCatalogSyncWorkflow, {
          workflowId: storeSyncWorkflowId(provider.id),
          args: [{ providerId: provider.id }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowExecutionTimeout: '30 minutes',
          // By name (StoreProvider, registered in src/temporal/search-attributes.ts): workflows/ never imports src/temporal/.
          searchAttributes: input.searchAttributes ? { StoreProvider: [provider.slug] } : undefined,
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError)
          return { status: 'already_running', providerId: provider.id, slug: provider.slug };
        if (err instanceof ChildWorkflowFailure) {
          const detail = err.cause?.message ?? err.message;
          log.warn('store catalog sync failed', { providerId: provider.id, slug: provider.slug, detail });
          return { status: 'failed', providerId: provider.id, slug: provider.slug, detail };
        }
        throw err;
      }
    }),
  );
  return { providers: providersResult };
}
