// A small app around some routes, built exactly as src/app.ts builds the API: the route
// definition with its guards, the global rate limit, answer checks against the document,
// 405/404 and the error middleware. For tests that hand a route set its own dependencies.
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { SessionService } from '../../src/auth/sessions';
import { membershipOf } from '../../src/companies/membership';
import { createResponseContract, type ContractViolation } from '../../src/http/contract';
import { createErrorHandler } from '../../src/http/error-middleware';
import { staffAccessOf } from '../../src/auth';
import { createGuards } from '../../src/http/guards';
import { requestLogger } from '../../src/http/logger';
import { globalRateLimit } from '../../src/http/rate-limit';
import { createApi, type Api } from '../../src/http/route';
import { createRegistry, documentOf } from '../../src/openapi/registry';
import { openApiRoutes } from '../../src/openapi/routes';
import type { TestApp } from './app';

export interface RouteTestApp {
  app: Express;
  api: Api;
  /** Every answer that broke the document (a test that expects none asserts this is empty). */
  violations: ContractViolation[];
  stop(): void;
}

export function createRouteTestApp(
  t: TestApp,
  opts: { logger: Logger; sessions: Pick<SessionService, 'authenticate'>; register: (api: Api) => void },
): RouteTestApp {
  const registry = createRegistry();
  const violations: ContractViolation[] = [];
  const document = documentOf(registry, t.config.PUBLIC_BASE_URL);
  const contract = createResponseContract(document, (v) => {
    violations.push(v);
    opts.logger.error({ violation: v }, 'answer breaks the API contract');
  });
  const rateLimit = globalRateLimit({ pool: t.db.pool, max: t.config.RATE_LIMIT_MAX, windowSeconds: t.config.RATE_LIMIT_WINDOW_SECONDS });
  const guards = createGuards({
    sessions: opts.sessions,
    staffAccess: staffAccessOf(t.db.sql),
    membership: membershipOf(t.db.sql),
  });
  const api = createApi({ registry, guards, rateLimit, contract });
  opts.register(api);
  const app = express();
  app.use(requestLogger(opts.logger));
  app.use(api.options);
  app.use(api.router);
  app.use(rateLimit);
  app.use(openApiRoutes(document));
  app.use(api.methodNotAllowed);
  app.use(createErrorHandler(opts.logger, contract));
  return { app, api, violations, stop: () => rateLimit.stop() };
}
