import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createHttpStoreProvider } from './http';
import { mockStoreProviders } from './mock';
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
  return mockStoreProviders({ callbackDelayMs: config.MOCK_STORE_CALLBACK_DELAY, unhealthy });
}
