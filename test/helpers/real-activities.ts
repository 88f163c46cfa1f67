// The real activities (createActivities) on a test's database, with the development stand-ins for
// every provider: what workflow tests with real activities hand their worker.
import { createActivities, type ActivityDeps } from '../../activities';
import type { Config } from '../../src/config';
import { createMockIdentityProvider } from '../../src/identity/provider';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { mockOperators } from '../../src/operators/mock';
import { OperatorRegistry } from '../../src/operators/plugin';
import { createMockPaymentProvider } from '../../src/payments/providers';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createMockFxSource } from '../../src/fx/mock';
import { storeOrderPayments } from '../../src/store';
import { mockStoreProviders } from '../../src/store/providers/mock';
import type { TestDatabase } from './db';

/** Mock operators, payments, store providers and FX source, an identity provider that decides at the first poll, in-memory messages. */
export function realActivities(
  db: Pick<TestDatabase, 'sql'>,
  config: Pick<Config, 'DATA_ENCRYPTION_KEY' | 'DATA_HASH_KEY' | 'PUBLIC_BASE_URL'>,
  overrides: Partial<ActivityDeps> = {},
) {
  return createActivities({
    db: db.sql,
    operators: new OperatorRegistry(mockOperators()),
    identity: createMockIdentityProvider({ delayMs: 0 }),
    cipher: createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY),
    messages: createMemoryMessageSender(),
    paymentProvider: createMockPaymentProvider({ publicBaseUrl: config.PUBLIC_BASE_URL }),
    storeProviders: mockStoreProviders(),
    fxSource: createMockFxSource(),
    storeOrderPayments,
    ...overrides,
  });
}
