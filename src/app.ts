import express, { type Express } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { createAccountService } from './auth/account';
import { createMagicLinkService, noLookupsYet, type MagicLinkLookups } from './auth/magic-link';
import { createOtpService } from './auth/otp';
import { createPhoneChangeService } from './auth/phone-change';
import { authRoutes } from './auth/routes';
import { createSessionService } from './auth/sessions';
import type { Config } from './config';
import { healthRoutes } from './health/routes';
import { errorHandler, notFoundHandler } from './http/error-middleware';
import { requestLogger } from './http/logger';
import { globalRateLimit } from './http/rate-limit';
import { createPersonalDataCipher } from './lib/crypto';
import { createRegistry } from './openapi/registry';
import { openApiRoutes } from './openapi/routes';
import type { MessageSender } from './providers/messages';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  pool: Pool;
  logger: Logger;
  messages: MessageSender;
  clock?: () => Date;
  temporalReady?: () => Promise<void>;
  magicLinkLookups?: MagicLinkLookups;
}

/** Builds the API without listening, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const { config, orm, pool } = deps;
  const clock = deps.clock ?? (() => new Date());
  const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
  const otp = createOtpService({ cipher, clock, config, messages: deps.messages });
  const sessions = createSessionService({ orm, pool, clock, config });
  const accounts = createAccountService({ orm, cipher, clock, otp, sessions });
  const phoneChange = createPhoneChangeService({ orm, cipher, clock, otp });
  const magicLinks = createMagicLinkService({
    orm, cipher, clock, sessions, lookups: deps.magicLinkLookups ?? noLookupsYet, missingConsents: accounts.missingConsents,
  });
  const registry = createRegistry();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(requestLogger(deps.logger));
  // Probes stay outside the per-IP limit so orchestrators never lock themselves out.
  app.use(healthRoutes(registry, { pool, temporalReady: deps.temporalReady ?? (() => Promise.reject(new Error('no Temporal'))) }));
  app.use(globalRateLimit({ pool, max: config.RATE_LIMIT_MAX, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS }));
  app.use(express.json({ limit: '100kb' }));
  app.use(authRoutes(registry, { accounts, phoneChange, magicLinks, sessions, webSessionSeconds: config.WEB_SESSION_SECONDS }));
  app.use(openApiRoutes(registry, config.PUBLIC_BASE_URL));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
