import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createHttpStoreProvider } from './http';
import { mockCallbackSender } from './mock-callback';
import { mockStoreProviders } from './mock';

/** POST /webhooks/esim-provider (src/webhooks/routes.ts): where the mock's callbacks go. */
const ESIM_PROVIDER_PATH = '/webhooks/esim-provider';
import { StoreProviderRegistry } from './plugin';

export type StoreProviderConfig = Pick<
  Config,
  | 'STORE_PROVIDER'
  | 'STORE_HTTP_URL'
  | 'STORE_HTTP_CLIENT_ID'
  | 'STORE_HTTP_CLIENT_SECRET'
  | 'STORE_HTTP_SLUG'
  | 'STORE_HTTP_TIMEOUT_MS'
  | 'STORE_HTTP_RETRIES'
  | 'MOCK_STORE_CALLBACK_DELAY'
  | 'MOCK_STORE_UNHEALTHY'
  | 'MOCK_STORE_CALLBACK_URL'
  | 'PUBLIC_BASE_URL'
  | 'ESIM_PROVIDER_MERCHANT_ID'
>;

type Issues = Array<[key: string, message: string]>;

/**
 * The store's provider plugins by STORE_PROVIDER: the three mock stand-ins (default), or the one
 * wholesale partner over HTTP under STORE_HTTP_SLUG. Missing settings are added to `issues`.
 */
export function createStoreProviders(config: StoreProviderConfig, logger: Logger, issues: Issues): StoreProviderRegistry {
  if (config.STORE_PROVIDER === 'http') {
    const missing = (['STORE_HTTP_URL', 'STORE_HTTP_CLIENT_ID', 'STORE_HTTP_CLIENT_SECRET'] as const).filter((k) => !config[k]);
    for (const key of missing) issues.push([key, 'must be set when STORE_PROVIDER=http']);
    if (missing.length === 0) {
      return new StoreProviderRegistry([
        createHttpStoreProvider({
          slug: config.STORE_HTTP_SLUG,
          baseUrl: config.STORE_HTTP_URL!,
          clientId: config.STORE_HTTP_CLIENT_ID!,
          clientSecret: config.STORE_HTTP_CLIENT_SECRET!,
          timeoutMs: config.STORE_HTTP_TIMEOUT_MS,
          retries: config.STORE_HTTP_RETRIES,
          logger: logger.child({ component: 'store-provider' }),
        }),
      ]);
    }
  }
  const unhealthy = (config.MOCK_STORE_UNHEALTHY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Pending mock orders complete by a signed callback to the API, as a partner's would.
  const onPending = mockCallbackSender({
    url: config.MOCK_STORE_CALLBACK_URL ?? new URL(ESIM_PROVIDER_PATH, config.PUBLIC_BASE_URL).toString(),
    merchantId: config.ESIM_PROVIDER_MERCHANT_ID,
    logger: logger.child({ component: 'mock-store-callback' }),
  });
  return mockStoreProviders({ callbackDelayMs: config.MOCK_STORE_CALLBACK_DELAY, unhealthy, onPending });
}
