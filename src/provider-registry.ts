import type { Logger } from 'pino';
import { ConfigError, type Config } from './config';
import { createFxSource, type FxSourceConfig } from './fx';
import type { FxSource } from './fx/source';
import { createHttpIdentityProvider } from './identity/http';
import { createMockIdentityProvider, type IdentityProvider } from './identity/provider';
import { parseOperatorEndpoints } from './lib/operator-endpoints';
import { createHttpOperators } from './operators/http';
import { mockOperators } from './operators/mock';
import { OperatorRegistry } from './operators/plugin';
import { createStoreProviders, type StoreProviderConfig } from './store/providers';
import type { StoreProviderRegistry } from './store/providers/plugin';
import { createChannelSender, createFileMessageSender, type MessageSender } from './providers/messages';
import { createHttpSmsSender } from './providers/sms-http';
import { createSmtpMessageSender } from './providers/smtp';

export type ProviderConfig = Pick<
  Config,
  | 'MESSAGES_FILE'
  | 'EMAIL_PROVIDER'
  | 'SMTP_HOST'
  | 'SMTP_PORT'
  | 'SMTP_SECURE'
  | 'SMTP_USER'
  | 'SMTP_PASSWORD'
  | 'SMTP_FROM'
  | 'SMTP_TIMEOUT_MS'
  | 'SMS_PROVIDER'
  | 'SMS_HTTP_URL'
  | 'SMS_HTTP_TOKEN'
  | 'SMS_SENDER_ID'
  | 'SMS_HTTP_TIMEOUT_MS'
  | 'SMS_HTTP_RETRIES'
  | 'IDENTITY_PROVIDER'
  | 'IDENTITY_HTTP_URL'
  | 'IDENTITY_HTTP_TOKEN'
  | 'IDENTITY_HTTP_TIMEOUT_MS'
  | 'IDENTITY_HTTP_RETRIES'
  | 'OPERATOR_PROVIDER'
  | 'OPERATOR_HTTP_ENDPOINTS'
  | 'OPERATOR_HTTP_TOKEN'
  | 'OPERATOR_HTTP_TIMEOUT_MS'
  | 'MOCK_IDENTITY_DELAY_MS'
  | 'MOCK_OPERATOR_DELAY_MS'
> &
  StoreProviderConfig &
  FxSourceConfig;

/** What the API and the worker call out to; each part is a development stand-in or a real adapter, by configuration. */
export interface Providers {
  /** SMS and e-mail (the API sends OTPs, the worker the eSIM e-mail). */
  messages: MessageSender;
  /** National identity verification (the worker). */
  identity: IdentityProvider;
  /** Telecom operators by slug (the API validates serials, the worker hands off). */
  operators: OperatorRegistry;
  /** eSIM store providers by slug (the API checks health, the worker syncs catalogs and places orders). */
  store: StoreProviderRegistry;
  /** Where the FX schedule fetches exchange rates (the worker). */
  fx: FxSource;
}

type Issues = Array<[key: string, message: string]>;

function required<T>(issues: Issues, key: keyof ProviderConfig, value: T | undefined, because: string): T | undefined {
  if (value === undefined) issues.push([key, `must be set when ${because}`]);
  return value;
}

function createMessages(config: ProviderConfig, logger: Logger, issues: Issues): MessageSender {
  let file: MessageSender | undefined;
  const fileSender = () => (file ??= createFileMessageSender(config.MESSAGES_FILE));
  let email: MessageSender | undefined;
  let sms: MessageSender | undefined;
  if (config.EMAIL_PROVIDER === 'smtp') {
    const host = required(issues, 'SMTP_HOST', config.SMTP_HOST, 'EMAIL_PROVIDER=smtp');
    if (config.SMTP_USER && !config.SMTP_PASSWORD) issues.push(['SMTP_PASSWORD', 'must be set when SMTP_USER is']);
    if (host) {
      email = createSmtpMessageSender({
        host,
        port: config.SMTP_PORT,
        secure: config.SMTP_SECURE,
        user: config.SMTP_USER,
        password: config.SMTP_PASSWORD,
        from: config.SMTP_FROM,
        timeoutMs: config.SMTP_TIMEOUT_MS,
        logger: logger.child({ component: 'email' }),
      });
    }
  }
  if (config.SMS_PROVIDER === 'http') {
    const url = required(issues, 'SMS_HTTP_URL', config.SMS_HTTP_URL, 'SMS_PROVIDER=http');
    if (url) {
      sms = createHttpSmsSender({
        url,
        token: config.SMS_HTTP_TOKEN,
        senderId: config.SMS_SENDER_ID,
        timeoutMs: config.SMS_HTTP_TIMEOUT_MS,
        retries: config.SMS_HTTP_RETRIES,
        logger: logger.child({ component: 'sms' }),
      });
    }
  }
  // Both on the file (development): the file sender itself, exactly as before.
  if (!email && !sms) return fileSender();
  return createChannelSender({ email: email ?? fileSender(), sms: sms ?? fileSender() });
}

function createIdentity(config: ProviderConfig, logger: Logger, issues: Issues): IdentityProvider {
  if (config.IDENTITY_PROVIDER === 'http') {
    const url = required(issues, 'IDENTITY_HTTP_URL', config.IDENTITY_HTTP_URL, 'IDENTITY_PROVIDER=http');
    if (url) {
      return createHttpIdentityProvider({
        url,
        token: config.IDENTITY_HTTP_TOKEN,
        timeoutMs: config.IDENTITY_HTTP_TIMEOUT_MS,
        retries: config.IDENTITY_HTTP_RETRIES,
        logger: logger.child({ component: 'identity' }),
      });
    }
  }
  return createMockIdentityProvider({ delayMs: config.MOCK_IDENTITY_DELAY_MS });
}

function createOperators(config: ProviderConfig, logger: Logger, issues: Issues): OperatorRegistry {
  if (config.OPERATOR_PROVIDER === 'http') {
    const value = required(issues, 'OPERATOR_HTTP_ENDPOINTS', config.OPERATOR_HTTP_ENDPOINTS, 'OPERATOR_PROVIDER=http');
    if (value) {
      try {
        const endpoints = parseOperatorEndpoints(value);
        return new OperatorRegistry(
          createHttpOperators(endpoints, {
            token: config.OPERATOR_HTTP_TOKEN,
            timeoutMs: config.OPERATOR_HTTP_TIMEOUT_MS,
            logger: logger.child({ component: 'operators' }),
          }),
        );
      } catch (err) {
        issues.push(['OPERATOR_HTTP_ENDPOINTS', err instanceof Error ? err.message : String(err)]);
      }
    }
  }
  return new OperatorRegistry(mockOperators({ handoffDelayMs: config.MOCK_OPERATOR_DELAY_MS }));
}

/**
 * The providers of one process (the API and the worker each build theirs), chosen by
 * EMAIL_PROVIDER, SMS_PROVIDER, IDENTITY_PROVIDER, OPERATOR_PROVIDER, STORE_PROVIDER and FX_SOURCE. Defaults are the
 * development stand-ins (the messages file, the mock identity provider, the mock operators).
 * A real adapter missing its settings stops start-up with a ConfigError naming them.
 */
export function createProviders(config: ProviderConfig, logger: Logger): Providers {
  const issues: Issues = [];
  const providers = {
    messages: createMessages(config, logger, issues),
    identity: createIdentity(config, logger, issues),
    operators: createOperators(config, logger, issues),
    store: createStoreProviders(config, logger, issues),
    fx: createFxSource(config, logger, issues),
  };
  if (issues.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${issues.map(([key, message]) => `  ${key}: ${message}`).join('\n')}`);
  }
  return providers;
}
