import type { StorePaymentMode } from '../../entities';
import type { StoreProductFields } from '../product';

/**
 * The development stand-ins of the store (spec "Development stand-ins"): three mock providers and
 * twelve SKUs, each SKU choosing what happens when it is ordered and paid. The mock plugins
 * (mock.ts) serve them; the seed (src/store/stand-ins.ts) writes them with these fixed ids, so people
 * and tests can paste them into requests. docs/demo.md lists how to reach every outcome.
 */

export interface MockStoreProvider {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  paymentMode: StorePaymentMode;
  supportsAsync: boolean;
}

/**
 * What the mock does when the SKU is placed: `issued` at once; `delayed` pending, then a signed callback
 * after MOCK_STORE_CALLBACK_DELAY; `identity_check` the same, as an identity check; `fail_once` the first
 * placement of an order fails (retryable), the next issues; `reject` refused for good.
 */
export type MockOutcome = 'issued' | 'delayed' | 'identity_check' | 'fail_once' | 'reject';

/** A stand-in SKU: the product's fields (unlimited when dataAmountMb is null) and how the stand-in treats it. */
export interface MockStoreSku extends Omit<StoreProductFields, 'isUnlimited'> {
  /** The product row's id (fixed). */
  id: string;
  providerSlug: string;
  /** False: the provider no longer lists it (the seed writes it inactive; a sync keeps it so). */
  listed: boolean;
  outcome: MockOutcome;
}

export const MOCK_STORE_PROVIDERS: MockStoreProvider[] = [
  {
    id: 'e5170000-0000-4000-8000-000000000001',
    slug: 'mock-store',
    nameEn: 'Mock eSIM Store',
    nameAr: 'متجر الشرائح الإلكترونية التجريبي',
    paymentMode: 'internal',
    supportsAsync: true,
  },
  {
    id: 'e5170000-0000-4000-8000-000000000002',
    slug: 'mock-store-lite',
    nameEn: 'Mock eSIM Store Lite',
    nameAr: 'متجر الشرائح الإلكترونية التجريبي المبسّط',
    paymentMode: 'internal',
    supportsAsync: false,
  },
  {
    id: 'e5170000-0000-4000-8000-000000000003',
    slug: 'mock-store-external',
    nameEn: 'Mock eSIM Store (external payment)',
    nameAr: 'متجر الشرائح الإلكترونية التجريبي (دفع خارجي)',
    paymentMode: 'external',
    supportsAsync: false,
  },
];

const productId = (n: number) => `e5171000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const sku = (
  n: number,
  code: string,
  providerSlug: string,
  nameEn: string,
  nameAr: string,
  countries: string[],
  dataAmountMb: number | null,
  validityDays: number,
  priceUsdCents: number,
  outcome: MockOutcome,
  extra: { listed?: boolean; requiresKyc?: boolean } = {},
): MockStoreSku => ({
  id: productId(n),
  sku: code,
  providerSlug,
  nameEn,
  nameAr,
  countries,
  dataAmountMb,
  validityDays,
  priceUsdCents,
  listed: extra.listed ?? true,
  requiresKyc: extra.requiresKyc ?? false,
  outcome,
});

export const MOCK_STORE_SKUS: MockStoreSku[] = [
  sku(1, 'MOCK-SYNC-SA-5GB', 'mock-store', 'Saudi Arabia 5 GB', 'السعودية 5 جيجابايت', ['SA'], 5120, 30, 1200, 'issued'),
  sku(2, 'MOCK-SYNC-AE-1GB', 'mock-store', 'UAE 1 GB', 'الإمارات 1 جيجابايت', ['AE'], 1024, 7, 450, 'issued'),
  sku(
    3,
    'MOCK-SYNC-GLOBAL-UNL',
    'mock-store',
    'Global unlimited',
    'عالمي غير محدود',
    ['AE', 'EG', 'GB', 'SA', 'US'],
    null,
    10,
    3900,
    'issued',
  ),
  sku(4, 'MOCK-ASYNC-EG-3GB', 'mock-store', 'Egypt 3 GB (delayed)', 'مصر 3 جيجابايت (متأخر)', ['EG'], 3072, 15, 900, 'delayed'),
  sku(
    5,
    'MOCK-KYC-SA-10GB',
    'mock-store',
    'Saudi Arabia 10 GB (identity check)',
    'السعودية 10 جيجابايت (تحقق من الهوية)',
    ['SA'],
    10240,
    30,
    2000,
    'identity_check',
    {
      requiresKyc: true,
    },
  ),
  sku(
    6,
    'MOCK-FAILONCE-GB-2GB',
    'mock-store',
    'United Kingdom 2 GB (fails once)',
    'المملكة المتحدة 2 جيجابايت (يفشل مرة)',
    ['GB'],
    2048,
    7,
    600,
    'fail_once',
  ),
  sku(
    7,
    'MOCK-REJECT-US-1GB',
    'mock-store',
    'United States 1 GB (refused)',
    'الولايات المتحدة 1 جيجابايت (مرفوض)',
    ['US'],
    1024,
    7,
    500,
    'reject',
  ),
  sku(8, 'MOCK-SYNC-CHEAP-100MB', 'mock-store', 'Saudi Arabia 100 MB', 'السعودية 100 ميجابايت', ['SA'], 100, 1, 40, 'issued'),
  sku(9, 'MOCK-SYNC-OLD-1GB', 'mock-store', 'Saudi Arabia 1 GB (old)', 'السعودية 1 جيجابايت (قديم)', ['SA'], 1024, 7, 300, 'issued', {
    listed: false,
  }),
  sku(10, 'LITE-SYNC-SA-1GB', 'mock-store-lite', 'Saudi Arabia 1 GB (lite)', 'السعودية 1 جيجابايت (مبسّط)', ['SA'], 1024, 7, 300, 'issued'),
  sku(
    11,
    'LITE-KYC-SA-5GB',
    'mock-store-lite',
    'Saudi Arabia 5 GB (identity check, lite)',
    'السعودية 5 جيجابايت (تحقق من الهوية، مبسّط)',
    ['SA'],
    5120,
    30,
    1500,
    'identity_check',
    {
      requiresKyc: true,
    },
  ),
  sku(
    12,
    'EXT-SYNC-SA-1GB',
    'mock-store-external',
    'Saudi Arabia 1 GB (external payment)',
    'السعودية 1 جيجابايت (دفع خارجي)',
    ['SA'],
    1024,
    7,
    300,
    'issued',
  ),
];
