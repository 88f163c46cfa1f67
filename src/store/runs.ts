/**
 * What the API asks of the catalog sync (spec "POST /admin/store/catalog/sync"). The admin route depends
 * on this port; src/temporal/store-sync.ts implements it on a Temporal client, tests may pass a fake.
 * Both resolve with the run's workflow id once Temporal took the start or found the run already going
 * (one sync per provider at a time: a second request gets the running one), and reject when Temporal
 * could not be reached in time (the route answers STORE_SYNC_UNAVAILABLE).
 */
export interface StoreSyncRuns {
  /** `store-sync:<providerId>`, with the StoreProvider search attribute (its slug). */
  syncProvider(provider: { id: string; slug: string }): Promise<{ workflowId: string }>;
  /** `store-sync:all`: every active provider, each in its own `store-sync:<providerId>` run. */
  syncAll(): Promise<{ workflowId: string }>;
}
