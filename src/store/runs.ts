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

/** What a store order's run starts from (its pending start, src/workflow-starts): ids only. */
export interface StoreOrderStartArgs {
  orderId: string;
  userId: string;
}

/**
 * What the API asks of a store order's workflow (`store-order:<orderId>`) directly: start, an admin
 * requeue (signal-with-start); "order paid" and the provider's verified callbacks go through pending
 * signals (src/workflow-signals). The services and the
 * webhook's hand-off depend on this port; src/temporal/store-orders.ts implements it on a Temporal
 * client, tests may pass a fake.
 */
export interface StoreOrderRuns {
  /** Idempotent by workflow id; `late` when the start relay makes it (the payment TTL counts from the order's creation). */
  start(args: StoreOrderStartArgs, late?: { ageMs: number }): Promise<void>;
  /** Signals the running run, or starts a new one for a finished order; rejects when Temporal did not take it. */
  requeue(orderId: string): Promise<void>;
}
