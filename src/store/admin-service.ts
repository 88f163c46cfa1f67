import { writeAudit } from '../audit/writer';
import type { Db } from '../db/sql';
import { AppError } from '../http/errors';
import { offsetOf, type OffsetPaging } from '../http/pagination';
import { likeSubstring } from '../db/like';
import { checkHealth } from './health';
import type { StoreProviderRegistry } from './providers/plugin';
import { adminProduct, adminProducts, type AdminProductRow } from './reads';
import {
  findProvider,
  listProviders,
  lockProduct,
  lockProvider,
  patchProduct,
  recordHealth,
  setProviderActive,
  type ProductPatch,
  type StoreProviderRow,
} from './repository';
import type { StoreSyncRuns } from './runs';
import type { AdminProductAnswer } from './schemas';
import { productView } from './service';

/** Who acts, and from where (the audit row's fields). */
export interface StoreActor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

export interface ProviderView {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  isActive: boolean;
  paymentMode: 'internal' | 'external';
  supportsAsync: boolean;
  health: { ok: boolean; checkedAt: string | null; detail: string | null };
}

export type AdminProductView = AdminProductAnswer;

export const providerView = (p: StoreProviderRow): ProviderView => ({
  id: p.id,
  slug: p.slug,
  nameEn: p.nameEn,
  nameAr: p.nameAr,
  isActive: p.isActive,
  paymentMode: p.paymentMode,
  supportsAsync: p.supportsAsync,
  health: { ok: p.healthOk === true, checkedAt: p.healthCheckedAt?.toISOString() ?? null, detail: p.healthDetail },
});

const adminProductView = (row: AdminProductRow): AdminProductView => ({
  ...productView(row, { currency: 'USD', rate: null }),
  sku: row.sku,
  isActive: row.isActive,
  syncedAt: row.syncedAt.toISOString(),
});

export interface AdminProductListInput extends OffsetPaging {
  providerId?: string;
  isActive?: boolean;
  search?: string;
}

/**
 * The store's administration (spec "Admin"): providers, their toggle behind a live health check,
 * products and staff edits, and the manual catalog sync. Each write is one transaction with its audit
 * row; the health check and the Temporal start happen outside any transaction.
 */
export function createStoreAdmin(deps: { db: Db; clock: () => Date; providers: StoreProviderRegistry; runs: StoreSyncRuns }) {
  const { db, clock } = deps;

  async function provider(id: string): Promise<StoreProviderRow> {
    const found = await findProvider(db, id);
    if (!found) throw new AppError('STORE_PROVIDER_NOT_FOUND');
    return found;
  }

  return {
    async providers(): Promise<ProviderView[]> {
      return (await listProviders(db)).map(providerView);
    },

    /**
     * Turning on runs the provider's health check first (fail closed: no plugin, an error or no answer is
     * a failure) and records it either way; a failure leaves the provider as it was and answers
     * STORE_PROVIDER_UNAVAILABLE. Turning off needs no check.
     */
    async toggle(actor: StoreActor, id: string, isActive: boolean): Promise<ProviderView> {
      const found = await provider(id);
      const health = isActive ? await checkHealth(deps.providers.get(found.slug), found.slug) : undefined;
      const updated = await db.transaction(async (tx) => {
        // Lock order: the provider row (as the catalog sync takes it).
        if (!(await lockProvider(tx, id))) throw new AppError('STORE_PROVIDER_NOT_FOUND');
        const now = clock();
        if (health) await recordHealth(tx, id, health, now);
        if (health && !health.ok) return null;
        const row = await setProviderActive(tx, id, isActive, now);
        await writeAudit(tx, {
          action: 'store.provider_toggled',
          actorUserId: actor.userId,
          entityType: 'store_provider',
          entityId: id,
          details: { before: { isActive: found.isActive }, after: { isActive } },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
        return row!;
      });
      // The failed check is recorded (GET /admin/store/providers shows its detail).
      if (!updated) throw new AppError('STORE_PROVIDER_UNAVAILABLE');
      return providerView(updated);
    },

    async products(input: AdminProductListInput) {
      const { rows, total } = await adminProducts(db, {
        providerId: input.providerId,
        isActive: input.isActive,
        pattern: input.search === undefined ? undefined : likeSubstring(input.search),
        limit: input.limit,
        offset: offsetOf(input),
      });
      return { products: rows.map(adminProductView), total };
    },

    /** A rename sticks across syncs; turning a product off keeps it off across syncs until staff turn it on. */
    async patchProduct(actor: StoreActor, id: string, patch: ProductPatch): Promise<AdminProductView> {
      const row = await db.transaction(async (tx) => {
        const before = await lockProduct(tx, id);
        if (!before) throw new AppError('STORE_PRODUCT_NOT_FOUND');
        const now = clock();
        await patchProduct(tx, id, patch, now);
        const after = (await adminProduct(tx, id))!;
        await writeAudit(tx, {
          action: 'store.product_updated',
          actorUserId: actor.userId,
          entityType: 'store_product',
          entityId: id,
          details: { before, after: { isActive: after.isActive, nameEn: after.nameEn, nameAr: after.nameAr } },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
        return after;
      });
      return adminProductView(row);
    },

    /** Starts (or joins) the sync of one provider, or of every active one; STORE_SYNC_UNAVAILABLE when Temporal did not take it. */
    async sync(providerId?: string): Promise<{ workflowId: string }> {
      const target = providerId === undefined ? undefined : await provider(providerId);
      try {
        return target ? await deps.runs.syncProvider({ id: target.id, slug: target.slug }) : await deps.runs.syncAll();
      } catch (err) {
        throw new AppError('STORE_SYNC_UNAVAILABLE', {
          message: `catalog sync not started: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    },
  };
}

export type StoreAdmin = ReturnType<typeof createStoreAdmin>;
