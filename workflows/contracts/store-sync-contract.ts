// The catalog sync's contract (spec "POST /admin/store/catalog/sync"): ids, inputs and results, imported by
// the API (src/store/runs-temporal.ts), the schedule (src/store/schedules.ts), the workflows and the tests.

/** One sync per provider at a time: the id is the provider's, and a start finding it running joins it. */
export const storeSyncWorkflowId = (providerId: string) => `store-sync:${providerId}`;

/** A sync of every active provider started by hand (the schedule's runs are `store-catalog-sync-<time>`). */
export const STORE_SYNC_ALL_WORKFLOW_ID = 'store-sync:all';

export interface StoreSyncInput {
  providerId: string;
}

export interface SyncCounts {
  added: number;
  updated: number;
  deactivated: number;
  /** Listed entries that were not usable (no SKU, a bad country, a price in fractions of a cent …). */
  skipped: number;
}

/**
 * `synced`: the catalog was written (counts, and syncedAt, the time every listed product now carries).
 * `unhealthy`: the health check failed (recorded on the provider), nothing was written: a provider that
 * is down never deactivates its catalog. `not_found`: no eSIM store provider has that id.
 */
export type StoreSyncResult =
  | ({ status: 'synced'; providerId: string; slug: string; syncedAt: string } & SyncCounts)
  | { status: 'unhealthy'; providerId: string; slug: string; detail: string }
  | { status: 'not_found'; providerId: string };

export interface StoreSyncAllInput {
  /** Set StoreProvider on each provider's run (TEMPORAL_SEARCH_ATTRIBUTES). */
  searchAttributes: boolean;
}

/** Per active provider: its run's result, or why there is none (a sync of it was already running; its run failed). */
export type StoreSyncAllEntry =
  | StoreSyncResult
  | { status: 'already_running'; providerId: string; slug: string }
  | { status: 'failed'; providerId: string; slug: string; detail: string };

export interface StoreSyncAllResult {
  providers: StoreSyncAllEntry[];
}

/**
 * The workflows as their client side starts them: by type name, typed by their signatures (workflows/index.ts
 * exports the implementations; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const STORE_SYNC_WORKFLOW_TYPE = 'storeCatalogSyncWorkflow';
export type StoreCatalogSyncWorkflow = (input: StoreSyncInput) => Promise<StoreSyncResult>;
export const STORE_SYNC_ALL_WORKFLOW_TYPE = 'storeCatalogSyncAllWorkflow';
export type StoreCatalogSyncAllWorkflow = (input: StoreSyncAllInput) => Promise<StoreSyncAllResult>;
