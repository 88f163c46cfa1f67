/**
 * The mock store providers (spec "Development stand-ins"): "its SKUs choose outcomes ... issued at once,
 * pending then completed by a signed callback, identity check, failure once then success, permanent
 * failure, health failure".
 */
import { randomUUID } from 'node:crypto';
import { MOCK_STORE_SKUS } from '../../src/store/providers/mock-catalog';
import { createMockStoreProvider, mockStoreProviders } from '../../src/store/providers/mock';
import { StoreProviderRejection, StoreProviderUnavailable } from '../../src/store/providers/plugin';

const LPA = /^LPA:1\$smdp\.mock-store\.example\$[A-Z0-9-]+$/;

describe('the mock store providers', () => {
  it('are three, by slug, each listing its listed SKUs only (MOCK-SYNC-OLD-1GB is no longer listed)', async () => {
    const registry = mockStoreProviders();
    expect(registry.slugs().sort()).toEqual(['mock-store', 'mock-store-external', 'mock-store-lite']);
    const skus = async (slug: string) => (await registry.get(slug)!.listProducts()).map((p) => p.sku).sort();
    expect(await skus('mock-store')).toEqual([
      'MOCK-ASYNC-EG-3GB',
      'MOCK-FAILONCE-GB-2GB',
      'MOCK-KYC-SA-10GB',
      'MOCK-REJECT-US-1GB',
      'MOCK-SYNC-AE-1GB',
      'MOCK-SYNC-CHEAP-100MB',
      'MOCK-SYNC-GLOBAL-UNL',
      'MOCK-SYNC-SA-5GB',
    ]);
    expect(await skus('mock-store-lite')).toEqual(['LITE-KYC-SA-5GB', 'LITE-SYNC-SA-1GB']);
    expect(await skus('mock-store-external')).toEqual(['EXT-SYNC-SA-1GB']);
    const global = (await registry.get('mock-store')!.listProducts()).find((p) => p.sku === 'MOCK-SYNC-GLOBAL-UNL');
    expect(global).toMatchObject({ isUnlimited: true, dataAmountMb: null, countries: ['AE', 'EG', 'GB', 'SA', 'US'], priceUsdCents: 3900 });
  });

  it('issues a MOCK-SYNC SKU at once, the same profile for the same order (idempotent by order id)', async () => {
    const mock = createMockStoreProvider('mock-store');
    const orderId = randomUUID();
    const placed = await mock.placeOrder(orderId, 'MOCK-SYNC-SA-5GB');
    expect(placed).toMatchObject({ status: 'issued', profile: { smdpAddress: 'smdp.mock-store.example' } });
    if (placed.status !== 'issued') throw new Error('not issued');
    expect(placed.profile.activationCodeRaw).toMatch(LPA);
    expect(placed.profile.iccid).toMatch(/^\d{19}$/);
    expect(await mock.placeOrder(orderId, 'MOCK-SYNC-SA-5GB')).toEqual(placed);
    expect(await mock.getOrder(orderId)).toEqual(placed);
  });

  it('answers pending for MOCK-ASYNC and MOCK-KYC, tells who sends the callback, and completes after MOCK_STORE_CALLBACK_DELAY', async () => {
    let now = 1_000_000;
    const pending: Array<[string, number]> = [];
    const mock = createMockStoreProvider('mock-store', {
      callbackDelayMs: 2_000,
      now: () => now,
      onPending: (id, ms) => pending.push([id, ms]),
    });
    const delayed = randomUUID();
    const kyc = randomUUID();
    expect(await mock.placeOrder(delayed, 'MOCK-ASYNC-EG-3GB')).toEqual({ status: 'pending', reason: 'delayed' });
    expect(await mock.placeOrder(kyc, 'MOCK-KYC-SA-10GB')).toEqual({ status: 'pending', reason: 'identity_check' });
    expect(pending).toEqual([
      [delayed, 2_000],
      [kyc, 2_000],
    ]);
    expect(await mock.getOrder(delayed)).toEqual({ status: 'pending' });
    now += 2_000;
    expect(await mock.getOrder(delayed)).toMatchObject({ status: 'issued' });
    expect(await mock.getOrder(kyc)).toMatchObject({ status: 'issued' });
  });

  it('cancels a pending order (never issued afterwards, nor placed again); an issued profile or an unknown order cannot be cancelled', async () => {
    let now = 1_000_000;
    const mock = createMockStoreProvider('mock-store', { callbackDelayMs: 2_000, now: () => now });
    const pending = randomUUID();
    const issued = randomUUID();
    await mock.placeOrder(pending, 'MOCK-ASYNC-EG-3GB');
    await mock.placeOrder(issued, 'MOCK-SYNC-SA-5GB');
    expect(await mock.cancelOrder!(pending)).toEqual({ status: 'cancelled' });
    expect(await mock.cancelOrder!(pending)).toEqual({ status: 'cancelled' });
    now += 2_000;
    expect(await mock.getOrder(pending)).toEqual({ status: 'failed', reason: 'mock provider: order cancelled' });
    await expect(mock.placeOrder(pending, 'MOCK-ASYNC-EG-3GB')).rejects.toBeInstanceOf(StoreProviderRejection);
    expect(await mock.cancelOrder!(issued)).toEqual({ status: 'not_cancellable', reason: 'mock provider: the profile was already issued' });
    expect(await mock.getOrder(issued)).toMatchObject({ status: 'issued' });
    expect(await mock.cancelOrder!(randomUUID())).toEqual({ status: 'not_found' });
  });

  it('fails the first placement of a MOCK-FAILONCE order (retryable), then issues it', async () => {
    const mock = createMockStoreProvider('mock-store');
    const orderId = randomUUID();
    await expect(mock.placeOrder(orderId, 'MOCK-FAILONCE-GB-2GB')).rejects.toBeInstanceOf(StoreProviderUnavailable);
    expect(await mock.placeOrder(orderId, 'MOCK-FAILONCE-GB-2GB')).toMatchObject({ status: 'issued' });
  });

  it('refuses MOCK-REJECT for good, and an unknown SKU or another provider’s SKU', async () => {
    const mock = createMockStoreProvider('mock-store');
    await expect(mock.placeOrder(randomUUID(), 'MOCK-REJECT-US-1GB')).rejects.toBeInstanceOf(StoreProviderRejection);
    await expect(mock.placeOrder(randomUUID(), 'NOPE')).rejects.toBeInstanceOf(StoreProviderRejection);
    await expect(mock.placeOrder(randomUUID(), 'LITE-SYNC-SA-1GB')).rejects.toBeInstanceOf(StoreProviderRejection);
    expect(await mock.getOrder(randomUUID())).toEqual({ status: 'not_found' });
  });

  it('is healthy unless named in MOCK_STORE_UNHEALTHY', async () => {
    expect(await createMockStoreProvider('mock-store').health()).toEqual({ ok: true, detail: 'mock provider: healthy' });
    const registry = mockStoreProviders({ unhealthy: ['mock-store-lite'] });
    expect(await registry.get('mock-store-lite')!.health()).toEqual({
      ok: false,
      detail: 'mock provider: health check failed (MOCK_STORE_UNHEALTHY)',
    });
    expect((await registry.get('mock-store')!.health()).ok).toBe(true);
  });

  it('matches the contract table: twelve SKUs', () => {
    expect(MOCK_STORE_SKUS).toHaveLength(12);
  });
});
