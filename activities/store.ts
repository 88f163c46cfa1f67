import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/sql';
import { applySyncPlan, findProvider, listActiveProviders, lockProvider, recordHealth, storedProducts } from '../src/store/repository';
import { checkHealth } from '../src/store/health';
import { StoreProviderRejection, type StoreProviderRegistry } from '../src/store/providers/plugin';
import { planSync } from '../src/store/sync';
import type { SyncCounts } from '../workflows/contracts/store-sync-contract';

export interface StoreActivityDeps {
  db: Db;
  /** The store's provider plugins by slug (src/store/providers, chosen by STORE_PROVIDER). */
  storeProviders: Pick<StoreProviderRegistry, 'get'>;
  clock?: () => Date;
}

/** The catalog sync's activities: the providers to sync, a recorded health check, and one provider's list written in one transaction. */
export function createStoreActivities(deps: StoreActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    /** The active providers, for the scheduled sync of all. */
    async listStoreProvidersToSync(): Promise<Array<{ id: string; slug: string }>> {
      return (await listActiveProviders(deps.db)).map((p) => ({ id: p.id, slug: p.slug }));
    },

    /** Runs the provider's health check and records the verdict on its row (a provider without a plugin is unhealthy). */
    async checkStoreProviderHealth(input: {
      providerId: string;
    }): Promise<{ found: false } | { found: true; slug: string; ok: boolean; detail: string }> {
      const provider = await findProvider(deps.db, input.providerId);
      if (!provider) return { found: false };
      const health = await checkHealth(deps.storeProviders.get(provider.slug), provider.slug);
      await recordHealth(deps.db, provider.id, health, clock());
      return { found: true, slug: provider.slug, ...health };
    },

    /**
     * Lists the provider's products (outside any transaction), then, holding the provider row's lock,
     * upserts them by (provider, sku) and deactivates what it no longer lists (src/store/sync.ts).
     * Idempotent: a retry finds the rows as the first attempt left them.
     */
    async syncStoreCatalog(input: { providerId: string }): Promise<SyncCounts & { syncedAt: string }> {
      const provider = await findProvider(deps.db, input.providerId);
      const plugin = provider && deps.storeProviders.get(provider.slug);
      if (!provider || !plugin)
        throw ApplicationFailure.nonRetryable(`no store provider plugin for ${input.providerId}`, 'StoreProviderRejection');
      let listed;
      try {
        listed = await plugin.listProducts();
      } catch (err) {
        if (err instanceof StoreProviderRejection) throw ApplicationFailure.nonRetryable(err.message, 'StoreProviderRejection');
        throw err;
      }
      const now = clock();
      const plan = await deps.db.transaction(async (tx) => {
        await lockProvider(tx, provider.id);
        const planned = planSync(await storedProducts(tx, provider.id), listed);
        await applySyncPlan(tx, provider.id, planned, now);
        return planned;
      });
      return {
        added: plan.inserts.length,
        updated: plan.updates.length,
        deactivated: plan.deactivateIds.length,
        skipped: plan.skipped,
        syncedAt: now.toISOString(),
      };
    },
  };
}

export type StoreActivities = ReturnType<typeof createStoreActivities>;
