import type { Meter } from '@opentelemetry/api';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { createActivationCreation } from './activations/create';
import { createActivationIdentity } from './activations/identity';
import { activationStarter } from './activations/start';
import { createMagicLinkLookups } from './activations/latest';
import { activationReadRoutes } from './activations/read-routes';
import { createActivationReads } from './activations/read-service';
import { activationRoutes } from './activations/routes';
import { adminRoutes } from './admin/routes';
import { adminLinkRoutes } from './admin-links/routes';
import { createAdminLinkReads } from './admin-links/reads';
import { createBlocklistService } from './admin/blocklist';
import { adminUserRoutes } from './admin/user-routes';
import { createAdminUsers } from './admin/users';
import { createAuditReads } from './audit/reads';
import { auditRoutes } from './audit/routes';
import { billingRoutes } from './billing/routes';
import { createBillingService } from './billing/service';
import { documentRoutes } from './documents/routes';
import { createOrganizationSettings } from './settings/organization';
import { createFxRates } from './fx/rates';
import { storeRoutes } from './store/routes';
import { storeAdminRoutes } from './store/admin-routes';
import { createStoreAdmin } from './store/admin-service';
import { mockStoreProviders } from './store/providers/mock';
import type { StoreProviderRegistry } from './store/providers/plugin';
import type { StoreOrderRuns, StoreSyncRuns } from './store/runs';
import { createStoreOrders } from './store/orders';
import { createStoreOrderCallbacks, partnerCallbacksOf } from './store/callbacks';
import { createStoreBrowse } from './store/service';
import { storeOrderPayments } from './store';
import { settingsRoutes } from './settings/routes';
import { createAccountDeletion } from './compliance/deletion';
import { createUserExport } from './compliance/export';
import { createComplianceReads } from './compliance/reads';
import { complianceRoutes } from './compliance/routes';
import { forgetOnErasure } from './compliance/forget';
import { createMockIdentityProvider, type IdentityProvider } from './identity/provider';
import type { SignalSender } from './workflow-signals/kinds';
import { createWorkflowSignals } from './workflow-signals/outbox';
import { createAccountService } from './auth/account';
import { createDeviceCheck } from './auth/devices';
import { createEmailChangeService } from './auth/email-change';
import { createMagicLinkService } from './auth/magic-link';
import { createOtpService } from './auth/otp';
import { createPhoneChangeService } from './auth/phone-change';
import { authRoutes } from './auth/routes';
import { createSessionCache } from './auth/session-cache';
import { createReadCache, forgetOnWrites } from './db/read-cache';
import { createSessionService } from './auth/sessions';
import type { Config } from './config';
import { healthRoutes } from './health/routes';
import { createResponseContract } from './http/contract';
import { createErrorHandler } from './http/error-middleware';
import { weakEtag } from './http/etag';
import { AppError } from './http/errors';
import { companyAdminRoutes } from './companies/admin-routes';
import { createCompanyAdmin } from './companies/admin-service';
import { createCompanyInvites } from './companies/invites';
import { membershipOf } from './companies/membership';
import { companyRoutes } from './companies/routes';
import type { CompanyRuns } from './companies/runs';
import { createCompanyService } from './companies/service';
import { createContractPayments } from './contracts/payments';
import { contractAdminRoutes } from './contracts/admin-routes';
import { contractPortalRoutes } from './contracts/routes';
import { createContractReads } from './contracts/service';
import { staffAccessOf } from './auth';
import { createGuards } from './http/guards';
import { keptMembership, keptStaffAccess } from './http/kept';
import { requestLogger } from './http/logger';
import { globalRateLimit } from './http/rate-limit';
import { securityHeaders } from './http/security-headers';
import { createPersonalDataCipher } from './lib/crypto';
import { createApi } from './http/route';
import { createRegistry, documentOf } from './openapi/registry';
import { openApiRoutes } from './openapi/routes';
import { mockWalletRoutes } from './webhooks/mock-wallet';
import { webhookRoutes } from './webhooks/routes';
import { createPaymentProvider, type PaymentProvider } from './payments/providers';
import { paymentRoutes } from './payments/routes';
import { reconciliationRoutes } from './reconciliation/routes';
import { quoteAdminRoutes } from './quotes/admin-routes';
import { createQuoteAdmin } from './quotes/admin-service';
import { quoteRoutes } from './quotes/routes';
import type { QuoteRuns } from './quotes/runs';
import { createQuoteService } from './quotes/service';
import { claimLink, findLinkById, findLinkByTokenHash } from './links';
import { linkRoutes } from './links/routes';
import { createLinks } from './links/service';
import { rosterRoutes } from './roster/routes';
import { createRosterAssignment } from './roster/assignment';
import { createRosterService } from './roster/service';
import { createReconciliationService } from './reconciliation/service';
import { createPaymentService } from './payments/service';
import { mockOperators } from './operators/mock';
import { OperatorRegistry } from './operators/plugin';
import { operatorRoutes } from './operators/routes';
import { createOperatorList } from './operators/service';
import { createOtpSender } from './messages/otp-sender';
import { createUndeliveredCount, type UndeliveredCount } from './messages/undelivered';
import type { MessageSender } from './providers/messages';
import type { ActivationRuns } from './activations/runs';
import type { PaymentRuns } from './payments/runs';
import { temporalCodecRoutes } from './temporal-codec/routes';
import { workflowStarters } from './workflow-starts/kinds';
import { createStartLauncher } from './workflow-starts/launch';
import type { Db } from './db/sql';

export interface AppDeps {
  config: Config;
  /** The data interface over the one pool (src/db/sql.ts); its pool also serves LISTEN and the rate limiter's store. */
  db: Db;
  logger: Logger;
  messages: MessageSender;
  /** Counts the one-time codes this process gave up (src/messages); default: its own. */
  undeliveredMessages?: UndeliveredCount;
  clock?: () => Date;
  temporalReady?: () => Promise<void>;
  /** True once the process is shutting down: /readyz answers 503 `stopping` (src/main.ts). */
  stopping?: () => boolean;
  /** Operator plugins by slug; default: the mock operators. */
  operators?: OperatorRegistry;
  /** The Temporal side of activations; without it, creates keep their runs' starts pending (the worker's start relay makes them). */
  activationRuns?: ActivationRuns;
  /** Default: chosen by PAYMENT_PROVIDER (the local mock unless configured). */
  paymentProvider?: PaymentProvider;
  /** The Temporal side of payment settlement. */
  paymentRuns?: PaymentRuns;
  /** The companies' onboarding runs; without it, registrations keep their runs' starts pending and status actions answer SERVICE_UNAVAILABLE. */
  companyRuns?: CompanyRuns;
  /** The quote chains' negotiation runs; without it, new chains keep their runs' starts pending and actions answer SERVICE_UNAVAILABLE. */
  quoteRuns?: QuoteRuns;
  /** eSIM store provider plugins by slug (the live health check of a toggle); default: the mock stand-ins. */
  storeProviders?: StoreProviderRegistry;
  /** The catalog sync's Temporal side; without it, POST /admin/store/catalog/sync answers STORE_SYNC_UNAVAILABLE. */
  storeSyncs?: StoreSyncRuns;
  /** The store orders' runs; without it, orders keep their runs' starts pending (the worker's start relay makes them). */
  storeOrderRuns?: StoreOrderRuns;
  /** Delivers what the API tells runs (src/workflow-signals); without it, signals wait for the worker's relay. */
  signalSender?: SignalSender;
  /** The identity provider verify-identity starts verifications at; default: chosen by IDENTITY_PROVIDER (the mock unless configured). */
  identity?: IdentityProvider;
  /** Where the per-route request metrics go (src/telemetry/metrics.ts); default: none recorded. */
  meter?: Meter;
}

const noTemporal: ActivationRuns = {
  start: () => Promise.reject(new Error('Temporal is not configured')),
};

const noSignals: SignalSender = () => Promise.reject(new Error('Temporal is not configured'));

const noPaymentTemporal: PaymentRuns = {
  startSettlement: () => Promise.reject(new Error('Temporal is not configured')),
  deliverEvent: () => Promise.reject(new Error('Temporal is not configured')),
};

const noCompanyTemporal: CompanyRuns = {
  start: () => Promise.reject(new Error('Temporal is not configured')),
  changeStatus: () => Promise.reject(new AppError('SERVICE_UNAVAILABLE', { message: 'Temporal is not configured' })),
  readinessChanged: () => Promise.resolve(),
};

const quoteActionUnavailable = () => Promise.reject(new AppError('SERVICE_UNAVAILABLE', { message: 'Temporal is not configured' }));
const noQuoteTemporal: QuoteRuns = {
  start: () => Promise.reject(new Error('Temporal is not configured')),
  submit: quoteActionUnavailable,
  startReview: quoteActionUnavailable,
  counter: quoteActionUnavailable,
  accept: quoteActionUnavailable,
  decline: quoteActionUnavailable,
  reject: quoteActionUnavailable,
  confirmContract: quoteActionUnavailable,
};

const noStoreSyncs: StoreSyncRuns = {
  syncProvider: () => Promise.reject(new Error('Temporal is not configured')),
  syncAll: () => Promise.reject(new Error('Temporal is not configured')),
};

const noStoreOrderTemporal: StoreOrderRuns = {
  start: () => Promise.reject(new Error('Temporal is not configured')),
};

/** Builds the API without listening, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const { config, db } = deps;
  const { pool } = db;
  const clock = deps.clock ?? (() => new Date());
  const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
  // One-time codes survive a provider's blip: retried briefly, then handed to the worker's message relay.
  const otpMessages = createOtpSender({
    sender: deps.messages,
    db,
    cipher,
    undelivered: deps.undeliveredMessages ?? createUndeliveredCount(),
    logger: deps.logger,
  });
  const otp = createOtpService({ cipher, clock, config, messages: otpMessages });
  // An erasure anywhere makes this process forget the decrypted values it keeps.
  const erasures = forgetOnErasure({ pool, cipher, logger: deps.logger });
  const cache = createSessionCache({
    pool,
    ttlMs: config.SESSION_CACHE_SECONDS * 1000,
    onError: (err) => deps.logger.warn({ err }, 'session cache listener lost'),
  });
  const sessions = createSessionService({ db, clock, config, cache });
  // Portal and admin reads and the guards' lookups, kept until a row they read changes (src/db/read-cache.ts).
  const readCache = createReadCache({
    pool,
    ttlMs: config.PORTAL_CACHE_MS,
    clock,
    onError: (err) => deps.logger.warn({ err }, 'read cache listener lost'),
  });
  const emailChange = createEmailChangeService({ db, cipher, clock, otp });
  const assertDeviceAllowed = createDeviceCheck({ db, hashKey: config.DATA_HASH_KEY });
  const accounts = createAccountService({
    db,
    cipher,
    clock,
    otp,
    sessions,
    emailChange,
    assertDeviceAllowed,
    messages: deps.messages,
    logger: deps.logger,
  });
  const phoneChange = createPhoneChangeService({ db, cipher, clock, otp });
  const magicLinks = createMagicLinkService({
    db,
    links: { byTokenHash: findLinkByTokenHash, byId: findLinkById, claim: claimLink },
    cipher,
    clock,
    sessions,
    lookups: createMagicLinkLookups(db),
    missingConsents: accounts.missingConsents,
    assertDeviceAllowed,
  });
  const operators = deps.operators ?? new OperatorRegistry(mockOperators());
  const activationRuns = deps.activationRuns ?? noTemporal;
  const companyRuns = deps.companyRuns ?? noCompanyTemporal;
  const quoteRuns = deps.quoteRuns ?? noQuoteTemporal;
  const storeOrderRuns = deps.storeOrderRuns ?? noStoreOrderTemporal;
  // Every run the API starts: rows and a pending start in one transaction, the start tried at once after it.
  const starts = createStartLauncher({
    db,
    starters: workflowStarters({
      activation: activationStarter({ db, runs: activationRuns, config }),
      companies: companyRuns,
      quotes: quoteRuns,
      storeOrders: storeOrderRuns,
    }),
    logger: deps.logger,
  });
  // Every signal the API owes a run: written with the decision, sent at once after the commit.
  const signals = createWorkflowSignals({ db, send: deps.signalSender ?? noSignals, logger: deps.logger });
  const creation = createActivationCreation({ db, operators, starts, config, clock });
  const identity = createActivationIdentity({
    db,
    identity: deps.identity ?? createMockIdentityProvider({ delayMs: config.MOCK_IDENTITY_DELAY_MS }),
    cipher,
    signals,
    config,
    clock,
  });
  const reads = createActivationReads({ db, cipher, config });
  const payments = createPaymentService({
    db,
    provider: deps.paymentProvider ?? createPaymentProvider(config),
    paymentRuns: deps.paymentRuns ?? noPaymentTemporal,
    signals,
    storeOrderPayments,
    clock,
    logger: deps.logger,
  });
  const registry = createRegistry();
  const document = documentOf(registry, config.PUBLIC_BASE_URL);
  const contract =
    (config.CONTRACT_CHECKS ?? config.NODE_ENV !== 'production')
      ? createResponseContract(document, (violation) => deps.logger.error({ violation }, 'answer breaks the API contract'))
      : undefined;
  const rateLimit = globalRateLimit({
    pool,
    max: config.RATE_LIMIT_MAX,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    syncMs: config.RATE_LIMIT_SYNC_MS,
  });
  const guards = createGuards({
    sessions,
    staffAccess: keptStaffAccess(readCache, staffAccessOf(db)),
    membership: keptMembership(readCache, membershipOf(db)),
  });
  const api = createApi({ registry, guards, rateLimit, contract });

  healthRoutes(api, { db, temporalReady: deps.temporalReady ?? (() => Promise.reject(new Error('no Temporal'))), stopping: deps.stopping });
  const storeProviders = deps.storeProviders ?? mockStoreProviders();
  webhookRoutes(api, {
    db,
    logger: deps.logger,
    config,
    storeOrders: createStoreOrderCallbacks({ signals }),
    // The real partner's own signed callbacks reach the same hand-off (the mocks sign the spec's way).
    partners: partnerCallbacksOf(storeProviders),
    signals,
  });
  authRoutes(api, { accounts, phoneChange, emailChange, magicLinks, sessions, webSessionSeconds: config.WEB_SESSION_SECONDS });
  activationReadRoutes(api, { reads });
  activationRoutes(api, { creation, identity });
  operatorRoutes(api, { operators: createOperatorList({ db, operators }) });
  paymentRoutes(api, { payments });
  adminRoutes(api, { blocklist: createBlocklistService({ db, clock, hashKey: config.DATA_HASH_KEY }) });
  reconciliationRoutes(api, { reconciliation: createReconciliationService({ db, clock }) });
  auditRoutes(api, { reads: createAuditReads(db) });
  adminUserRoutes(api, {
    users: createAdminUsers({ db, cipher, clock, logger: deps.logger, evictUser: (userId) => cache.evictUser(userId) }),
  });
  const fx = createFxRates({ db, clock, maxAgeMs: config.FX_MAX_AGE });
  settingsRoutes(api, { db, organization: createOrganizationSettings({ db, clock }), config, fx });
  const storeOrders = createStoreOrders({
    db,
    config,
    fx,
    providers: storeProviders,
    starts,
    signals,
    cipher,
    clock,
  });
  storeRoutes(api, { browse: createStoreBrowse({ db, config, fx }), orders: storeOrders });
  storeAdminRoutes(api, {
    admin: createStoreAdmin({ db, clock, providers: storeProviders, runs: deps.storeSyncs ?? noStoreSyncs }),
    orders: storeOrders,
  });
  complianceRoutes(api, {
    deletion: createAccountDeletion({
      db,
      cipher,
      clock,
      config,
      signals,
      evictUser: (userId) => cache.evictUser(userId),
      logger: deps.logger,
    }),
    exports: createUserExport({ db, cipher, clock }),
    reads: createComplianceReads(db),
  });
  documentRoutes(api, { db, logger: deps.logger });
  temporalCodecRoutes(api, { config, logger: deps.logger });
  companyRoutes(api, { cache: readCache, companies: createCompanyService({ db, cipher, starts, clock }) });
  companyAdminRoutes(api, {
    cache: readCache,
    companyAdmin: createCompanyAdmin({ db, cipher, runs: companyRuns }),
    invites: createCompanyInvites({ db, cipher, clock, logger: deps.logger }),
  });
  rosterRoutes(api, {
    cache: readCache,
    roster: createRosterService({ db, cipher, clock, logger: deps.logger, signals }),
    assignment: createRosterAssignment({ db, cipher, clock }),
  });
  linkRoutes(api, {
    links: createLinks({ db, cipher, messages: deps.messages, clock, logger: deps.logger, publicBaseUrl: config.PUBLIC_BASE_URL }),
  });
  const contracts = {
    cache: readCache,
    reads: createContractReads({ db, clock }),
    payments: createContractPayments({ db, signals, clock }),
  };
  contractPortalRoutes(api, contracts);
  contractAdminRoutes(api, contracts);
  adminLinkRoutes(api, { cache: readCache, reads: createAdminLinkReads({ db, cipher, clock }) });
  billingRoutes(api, { cache: readCache, billing: createBillingService({ db, clock }) });
  const quotes = createQuoteService({ db, runs: quoteRuns, starts, clock });
  quoteRoutes(api, { cache: readCache, quotes });
  quoteAdminRoutes(api, { cache: readCache, quotes, quoteAdmin: createQuoteAdmin({ db, runs: quoteRuns, clock }) });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('etag', weakEtag);
  // First, so every answer carries them: errors, 404s, 405s and what the rate limit refuses too.
  app.use(securityHeaders());
  app.use(requestLogger(deps.logger, { meter: deps.meter }));
  // A request that may write forgets the kept reads, so this process's own answers show it at once.
  app.use(forgetOnWrites(readCache));
  app.use(api.options);
  // Every documented route: guard, rate limit (except probes and signed webhooks), validation, answer checks.
  app.use(api.router);
  // Whatever is left (docs, development pages, unknown paths and methods) is inside the global limit.
  app.use(rateLimit);
  if (config.PAYMENT_PROVIDER === 'mock' && config.NODE_ENV !== 'production') {
    app.use(mockWalletRoutes({ db, clock }));
  }
  app.use(openApiRoutes(document));
  app.use(api.methodNotAllowed);
  app.use(createErrorHandler(deps.logger, contract));
  // The served document, for tools (npm run openapi) and tests.
  app.locals.openapi = document;
  // Background work the app owns: the rate-limit sync and the session-cache listener.
  app.locals.stop = async () => {
    rateLimit.stop();
    await rateLimit.flush().catch(() => undefined);
    await cache.stop();
    await readCache.stop();
    await erasures.stop();
  };
  return app;
}
