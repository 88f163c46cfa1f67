// The store's schedules: the catalog sync of every active provider (STORE_SYNC_EVERY) and the FX fetch
// (FX_FETCH_EVERY), both with the worker's overlap SKIP (src/temporal/schedules.ts). They run only while
// the store is on (FEATURE_ESIM_STORE); with it off the worker deletes them where they exist.
import type { Config } from '../config';
import { FX_FETCH_WORKFLOW_TYPE, type FxFetchWorkflow } from '../../workflows/contracts/fx-fetch-contract';
import { STORE_SYNC_ALL_WORKFLOW_TYPE, type StoreCatalogSyncAllWorkflow } from '../../workflows/contracts/store-sync-contract';
import { scheduleSpec, type ScheduleSpec } from '../temporal/schedule-spec';

export const STORE_SCHEDULE_IDS = {
  catalogSync: 'store-catalog-sync',
  fxFetch: 'fx-fetch',
} as const;

export type StoreScheduleConfig = Pick<
  Config,
  'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'FEATURE_ESIM_STORE' | 'STORE_SYNC_EVERY' | 'FX_FETCH_EVERY'
>;

export function storeScheduleSpecs(config: StoreScheduleConfig): ScheduleSpec[] {
  if (!config.FEATURE_ESIM_STORE) return [];
  return [
    scheduleSpec<StoreCatalogSyncAllWorkflow>({
      scheduleId: STORE_SCHEDULE_IDS.catalogSync,
      workflowType: STORE_SYNC_ALL_WORKFLOW_TYPE,
      args: [{ searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES }],
      every: config.STORE_SYNC_EVERY,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      description:
        'Syncs the catalog of every active eSIM store provider (upsert by provider and SKU, vanished SKUs deactivated), one store-sync:<providerId> run each.',
    }),
    scheduleSpec<FxFetchWorkflow>({
      scheduleId: STORE_SCHEDULE_IDS.fxFetch,
      workflowType: FX_FETCH_WORKFLOW_TYPE,
      args: [],
      every: config.FX_FETCH_EVERY,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      description: 'Fetches exchange rates per USD and appends a snapshot per currency; a failed fetch keeps the last rates.',
    }),
  ];
}

/** The store's schedule ids when the store is off: the worker deletes them (nothing of the store runs then). */
export function retiredStoreScheduleIds(config: Pick<Config, 'FEATURE_ESIM_STORE'>): string[] {
  return config.FEATURE_ESIM_STORE ? [] : Object.values(STORE_SCHEDULE_IDS);
}
