import { createHash } from 'node:crypto';
import { withLuhnDigit } from '../../operators/mock';
import { MOCK_STORE_PROVIDERS, MOCK_STORE_SKUS, type MockStoreSku } from './mock-catalog';
import {
  lpaOf,
  StoreProviderRegistry,
  StoreProviderRejection,
  StoreProviderUnavailable,
  type CancelledOrder,
  type EsimProfile,
  type PendingReason,
  type PlacedOrder,
  type ProviderOrder,
  type ProviderProduct,
  type StoreProviderPlugin,
} from './plugin';

/**
 * `mock-store` and its two siblings (the development stand-ins, refused in production with the store
 * on). Deterministic: a SKU's outcome is in mock-catalog.ts; a profile is derived from the order id, so
 * placing an order twice (or reading it) answers the same profile. What the mock remembers (pending
 * orders, the first failure of a fail-once order) lives in this process: one worker in development.
 */
export interface MockStoreOptions {
  /** MOCK_STORE_CALLBACK_DELAY: a pending order completes this long after its placement (default 2 s). */
  callbackDelayMs?: number;
  /** Told of each pending placement: the signed callback is sent from there after `delayMs` (mock-callback.ts). */
  onPending?: (orderId: string, delayMs: number, providerSlug: string, reason: PendingReason) => void;
  /** MOCK_STORE_UNHEALTHY: its health check fails. */
  unhealthy?: boolean;
  now?: () => number;
}

export const MOCK_SMDP = 'smdp.mock-store.example';
/** The failure reason of a withdrawn mock order. */
const CANCELLED = 'mock provider: order cancelled';

/** A profile from the order id alone: the same order always gets the same ICCID and matching id. */
export function mockProfile(orderId: string): EsimProfile {
  const digest = createHash('sha256').update(orderId).digest();
  const digits = Array.from(digest.subarray(0, 14), (b) => String(b % 10)).join('');
  const matchingId = `MOCK-${digest.subarray(14, 22).toString('hex').toUpperCase()}`;
  return { iccid: withLuhnDigit(`8997${digits}`), smdpAddress: MOCK_SMDP, matchingId, activationCodeRaw: lpaOf(MOCK_SMDP, matchingId) };
}

const productOf = (s: MockStoreSku): ProviderProduct => ({
  sku: s.sku,
  nameEn: s.nameEn,
  nameAr: s.nameAr,
  countries: [...s.countries],
  dataAmountMb: s.dataAmountMb,
  isUnlimited: s.dataAmountMb === null,
  validityDays: s.validityDays,
  requiresKyc: s.requiresKyc,
  priceUsdCents: s.priceUsdCents,
});

export function createMockStoreProvider(slug: string, opts: MockStoreOptions = {}): StoreProviderPlugin {
  const now = opts.now ?? Date.now;
  const delayMs = opts.callbackDelayMs ?? 2_000;
  const skus = MOCK_STORE_SKUS.filter((s) => s.providerSlug === slug);
  const failedOnce = new Set<string>();
  /** Orders placed (issued, or pending since then), by order id. */
  const placed = new Map<string, { outcome: MockStoreSku['outcome']; at: number }>();
  /** Pending orders withdrawn before they completed: never issued. */
  const cancelled = new Set<string>();
  const pendingAt = (orderId: string) => {
    const order = placed.get(orderId);
    const async = order?.outcome === 'delayed' || order?.outcome === 'identity_check';
    return async && now() - order.at < delayMs;
  };

  const place = (orderId: string, outcome: MockStoreSku['outcome']): PlacedOrder => {
    const first = !placed.has(orderId);
    if (first) placed.set(orderId, { outcome, at: now() });
    if (outcome === 'delayed' || outcome === 'identity_check') {
      if (first) opts.onPending?.(orderId, delayMs, slug, outcome);
      return { status: 'pending', reason: outcome };
    }
    return { status: 'issued', profile: mockProfile(orderId) };
  };

  return {
    slug,

    health() {
      return Promise.resolve(
        opts.unhealthy
          ? { ok: false, detail: 'mock provider: health check failed (MOCK_STORE_UNHEALTHY)' }
          : { ok: true, detail: 'mock provider: healthy' },
      );
    },

    listProducts() {
      return Promise.resolve(skus.filter((s) => s.listed).map(productOf));
    },

    async placeOrder(orderId, code): Promise<PlacedOrder> {
      await Promise.resolve();
      const found = skus.find((s) => s.sku === code);
      if (!found) throw new StoreProviderRejection(`mock provider: unknown SKU ${code}`);
      if (cancelled.has(orderId)) throw new StoreProviderRejection(CANCELLED);
      if (found.outcome === 'reject') throw new StoreProviderRejection('mock provider: order refused');
      if (found.outcome === 'fail_once' && !failedOnce.has(orderId)) {
        failedOnce.add(orderId);
        throw new StoreProviderUnavailable('mock provider: transient failure (fails once)');
      }
      return place(orderId, found.outcome);
    },

    getOrder(orderId): Promise<ProviderOrder> {
      if (!placed.has(orderId)) return Promise.resolve({ status: 'not_found' });
      if (cancelled.has(orderId)) return Promise.resolve({ status: 'failed', reason: CANCELLED });
      return Promise.resolve(pendingAt(orderId) ? { status: 'pending' } : { status: 'issued', profile: mockProfile(orderId) });
    },

    /** A pending order is withdrawn (its callback then changes nothing); an issued profile cannot be taken back. */
    cancelOrder(orderId): Promise<CancelledOrder> {
      if (!placed.has(orderId)) return Promise.resolve({ status: 'not_found' });
      if (!cancelled.has(orderId) && !pendingAt(orderId)) {
        return Promise.resolve({ status: 'not_cancellable', reason: 'mock provider: the profile was already issued' });
      }
      cancelled.add(orderId);
      return Promise.resolve({ status: 'cancelled' });
    },
  };
}

/** The three stand-in providers, by slug; `unhealthy` lists the slugs whose health check fails (MOCK_STORE_UNHEALTHY). */
export function mockStoreProviders(
  opts: Omit<MockStoreOptions, 'unhealthy'> & { unhealthy?: readonly string[] } = {},
): StoreProviderRegistry {
  const { unhealthy = [], ...rest } = opts;
  return new StoreProviderRegistry(
    MOCK_STORE_PROVIDERS.map((p) => createMockStoreProvider(p.slug, { ...rest, unhealthy: unhealthy.includes(p.slug) })),
  );
}
