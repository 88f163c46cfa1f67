import { z } from 'zod';
import { hostOfAddress, isLoopbackHost } from './lib/net';
import { parseOperatorEndpoints } from './lib/operator-endpoints';
import { parsePostgresUrl, type PostgresUrl } from './lib/postgres-url';
import { parseTrustProxy } from './lib/trust-proxy';

/** The span exporters OTEL_TRACES_EXPORTER may name (src/telemetry/tracing.ts), and the OTLP protocols. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
export const OTLP_PROTOCOLS = ['grpc', 'http/protobuf', 'http/json'] as const;

/**
 * Configuration comes from the environment only, validated once at start.
 * Development defaults exist for everything except production secrets: with
 * NODE_ENV=production a missing secret stops start-up with a clear message.
 */
const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';
// 32 zero-ish bytes, base64: never valid in production (see refine below).
const DEV_DATA_KEY = Buffer.alloc(32, 7).toString('base64');

// eSIM provider callback key for development and tests only (its private half lives in
// test/helpers/webhooks.ts); production must configure the provider's real key.
const DEV_ESIM_PROVIDER_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0EEvZEveBvDfRFEP8zFs
cxSnGHKWynZvInFlrEe/qM1j2LnQqHyV3g7Jn8r0XNPemwvIHrIrkmhGXj7zQYBW
qxSo/4tqj7ncvV++eVLXC+x90Z2LigBhNEhKdSOvwxDdRIhV+rLhJdnvkuZJVCxR
87M8XM0PO1hjclJdxqHlG9eGWScQ4K66foOEQrOsWmH3NW7X/1ZebTcoxW5OIiqL
dva4Igw6XK8sAvBFIdE7K5VW1vi6Q3joYJbLodvUosW/CgLtN/qzR4ulWYoZ+quo
Dq1XP43yaJY7rr53vYDp9h2DGpLZIeOwOP1OjPlKhFj+IfQX/wNfND5NzZtcRU3n
KwIDAQAB
-----END PUBLIC KEY-----`;
const DEV_WEBHOOK_SECRET = 'whsec_dev_only_change_me_0123456789abcdef';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A positive duration as `<whole number><ms|s|m|h|d>` (`90s`, `1h`, `48h`), read as milliseconds. */
const duration = (fallback: string) =>
  z
    .string()
    .regex(/^[1-9]\d*(ms|s|m|h|d)$/, 'must be a positive whole number with a unit: ms, s, m, h or d (e.g. 30m, 1h)')
    .transform((v) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(v)!;
      return Number(amount) * DURATION_UNITS[unit as keyof typeof DURATION_UNITS];
    })
    .prefault(fallback);

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    /**
     * At SIGTERM the API turns readiness off and keeps serving this long (the load balancer's time to stop
     * sending), then accepts no new connection. Unset: 5 in production, 0 elsewhere.
     */
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(300).optional(),
    /** Then the requests in flight get this long to finish before their connections are closed. */
    SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(600).default(20),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
    /** Unset: an embedded PostgreSQL is started (development, tests). */
    DATABASE_URL: z.string().optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /** Production: how long the API and the worker wait at start for `npm run migrate` to bring the schema up to date. */
    SCHEMA_WAIT_SECONDS: z.coerce.number().int().positive().default(300),
    /**
     * PEM file of the CA that signed the Postgres server's certificate (a managed service's, or your own),
     * for sslmode=require, verify-ca or verify-full in DATABASE_URL. Unset: the system's CAs. Production
     * takes verify-ca only with it (the chain must end at this CA; the host name is not checked).
     */
    DATABASE_SSL_CA_FILE: z.string().min(1).optional(),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    /**
     * TLS to Temporal. Unset: on when a CA, a client certificate or an API key is set (Temporal Cloud
     * always needs it), off otherwise (the local dev server).
     */
    TEMPORAL_TLS: bool.optional(),
    /** PEM file of the CA that signed the Temporal frontend's certificate. Unset: the system's CAs (Temporal Cloud). */
    TEMPORAL_TLS_CA_FILE: z.string().min(1).optional(),
    /** mTLS: PEM files of this client's certificate and key (Temporal Cloud's certificate authentication); both or neither. */
    TEMPORAL_TLS_CERT_FILE: z.string().min(1).optional(),
    TEMPORAL_TLS_KEY_FILE: z.string().min(1).optional(),
    /** The name the frontend's certificate is checked against, when it differs from TEMPORAL_ADDRESS's host. */
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    /** Temporal Cloud API key (sent as `Authorization: Bearer …`, over TLS only). */
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    /**
     * Hosts production may reach without TLS, comma-separated: only names on a private network you control
     * (docker compose: `postgres,temporal`; its local profile adds `stub`). Postgres, Temporal and the
     * http:// provider and OTLP URLs alike. Loopback never needs listing.
     */
    PLAINTEXT_HOSTS: z
      .string()
      .optional()
      .transform((text) =>
        (text ?? '')
          .split(',')
          .map((host) => host.trim().toLowerCase())
          .filter(Boolean),
      ),
    TEMPORAL_TASK_QUEUE: z.string().default('activation-sys'),
    /** Set false where the namespace lacks our custom search attributes. */
    TEMPORAL_SEARCH_ATTRIBUTES: bool.default(true),
    /** How long the worker keeps retrying its first connection (the server may still be starting). */
    TEMPORAL_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /**
     * At SIGTERM the worker stops polling and gives the activities running this long to finish before they
     * are cancelled (the SDK's default, 0, cancels them at once: every deploy would); after the force time
     * it stops whatever still runs. Keep the force time under the orchestrator's kill timeout.
     */
    WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
    WORKER_SHUTDOWN_FORCE_SECONDS: z.coerce.number().positive().max(3600).default(25),
    /**
     * A workflow bundle built ahead (src/cli/bundle-workflows.ts; the image sets it): the worker loads it
     * instead of bundling workflows/ at every start. Unset: bundled at start.
     */
    WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
    /** The worker's health endpoint (GET /healthz on HOST); unset: none. */
    WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').default(DEV_SECRET),
    JWT_ISSUER: z.string().default('activation-sys'),
    JWT_AUDIENCE: z.string().default('activation-sys-api'),
    WEB_SESSION_SECONDS: z.coerce.number().int().positive().default(3600),
    /**
     * How long a verified session is served from memory (0 disables); changes evict at once. At most 60:
     * the bound of what a missed invalidation could keep (the listener is probed, src/db/listener.ts).
     */
    SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
    /**
     * How long a portal or admin read (and a guard's membership or staff-access lookup) is served from
     * memory, in milliseconds (0 disables): row changes evict at once; this bounds only lazy expiry and
     * the rolling windows (src/db/read-cache.ts).
     */
    PORTAL_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    MOBILE_SESSION_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(30 * 24 * 3600),
    /** AES-256-GCM key for personal data at rest, base64 of 32 bytes. */
    DATA_ENCRYPTION_KEY: z.string().default(DEV_DATA_KEY),
    /** HMAC key for lookup hashes of phone, e-mail and id numbers. */
    DATA_HASH_KEY: z.string().min(32, 'DATA_HASH_KEY must be at least 32 characters').default(DEV_SECRET),
    RATE_LIMIT_MAX: z.coerce.number().int().positive().default(100),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60),
    /** How often each instance adds its local counts to the shared Postgres counters. */
    RATE_LIMIT_SYNC_MS: z.coerce.number().int().positive().default(100),
    OTP_TTL_SECONDS: z.coerce.number().int().positive().default(300),
    OTP_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
    OTP_MAX_REQUESTS: z.coerce.number().int().positive().default(3),
    OTP_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60),
    MESSAGES_FILE: z.string().default('.data/messages.jsonl'),
    // --- Providers: each has a development stand-in (file, mock) and a real adapter. Production
    // refuses every stand-in (see the production checks below). ---
    /** E-mail: `file` appends to MESSAGES_FILE (development); `smtp` sends through SMTP_*. */
    EMAIL_PROVIDER: z.enum(['file', 'smtp']).default('file'),
    SMTP_HOST: z.string().min(1).optional(),
    SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
    /** true: TLS from the start (port 465); false: STARTTLS when the server offers it. */
    SMTP_SECURE: bool.default(false),
    SMTP_USER: z.string().min(1).optional(),
    SMTP_PASSWORD: z.string().min(1).optional(),
    SMTP_FROM: z.string().min(3).default('activation-sys <no-reply@localhost>'),
    SMTP_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** SMS: `file` appends to MESSAGES_FILE (development); `http` posts to SMS_HTTP_URL. */
    SMS_PROVIDER: z.enum(['file', 'http']).default('file'),
    SMS_HTTP_URL: z.url().optional(),
    SMS_HTTP_TOKEN: z.string().min(1).optional(),
    SMS_SENDER_ID: z.string().min(1).default('ActivSys'),
    SMS_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    SMS_HTTP_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    /** National identity verification: `mock` (development) or `http` (IDENTITY_HTTP_URL). */
    IDENTITY_PROVIDER: z.enum(['mock', 'http']).default('mock'),
    IDENTITY_HTTP_URL: z.url().optional(),
    IDENTITY_HTTP_TOKEN: z.string().min(1).optional(),
    // One initiation attempt (retries + 1 tries of the timeout, plus backoff) must end inside the
    // API's 15 s wait for the verify-identity update: 2 x 4 s by default.
    IDENTITY_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(4_000),
    IDENTITY_HTTP_RETRIES: z.coerce.number().int().min(0).max(10).default(1),
    /**
     * Telecom operators: `mock` (the mock plugins, development) or `http`, one HTTP plugin per
     * entry of OPERATOR_HTTP_ENDPOINTS (`slug=https://base,slug2=https://base2`).
     */
    OPERATOR_PROVIDER: z.enum(['mock', 'http']).default('mock'),
    OPERATOR_HTTP_ENDPOINTS: z.string().min(1).optional(),
    OPERATOR_HTTP_TOKEN: z.string().min(1).optional(),
    OPERATOR_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * Payload codec keys for Temporal (AES-256-GCM): `keyId:base64-of-32-bytes`, comma-separated;
     * the first encrypts, every one decrypts (rotation). Unset: a development key.
     */
    TEMPORAL_PAYLOAD_KEYS: z.string().min(1).optional(),
    /** Origins allowed to call the codec endpoint from a browser (the Temporal UI), comma-separated. */
    TEMPORAL_CODEC_CORS_ORIGINS: z.string().default('http://127.0.0.1:8233,http://localhost:8233'),
    /** Express's `trust proxy`: true, false, a hop count, or loopback/linklocal/uniquelocal/IPs/CIDRs, comma-separated. */
    TRUST_PROXY: z
      .string()
      .transform((text, ctx) => {
        const parsed = parseTrustProxy(text);
        if ('value' in parsed) return parsed.value;
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      })
      .prefault('loopback'),
    FEATURE_ESIM: bool.default(true),
    /**
     * The eSIM store gate: off, browsing (and GET /admin/settings/fx-rates) answers STORE_DISABLED 422 and the
     * store's schedules are not run. Unset: on in development, off otherwise (loadConfig decides).
     */
    FEATURE_ESIM_STORE: bool.optional(),
    // --- The eSIM store (src/store/, src/fx/): its providers, the catalog sync and exchange rates. ---
    /** Store providers: `mock` (the three stand-ins, development) or `http` (one wholesale partner API, STORE_HTTP_*). */
    STORE_PROVIDER: z.enum(['mock', 'http']).default('mock'),
    /** The partner API's base URL (token at {base}/v2/token, packages, orders). */
    STORE_HTTP_URL: z.url().optional(),
    STORE_HTTP_CLIENT_ID: z.string().min(1).optional(),
    STORE_HTTP_CLIENT_SECRET: z.string().min(1).optional(),
    /** The slug of the partner's provider row (registered inactive at the API's start when missing). */
    STORE_HTTP_SLUG: z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'lowercase letters, digits and -')
      .default('partner-store'),
    STORE_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    STORE_HTTP_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    /**
     * POST /store/orders's live health check is shared per provider this long (a failure 1 s at most), so
     * orders cannot multiply partner calls; 0 shares only the check in flight. At most a minute: it stays live.
     */
    STORE_HEALTH_CHECK_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
    /** How often the Temporal Schedule `store-catalog-sync` syncs every active provider's catalog. */
    STORE_SYNC_EVERY: duration('1h'),
    /** How often the Temporal Schedule `fx-fetch` fetches exchange rates. */
    FX_FETCH_EVERY: duration('1h'),
    /** A currency whose latest rate is older than this is unsupported (STORE_CURRENCY_UNSUPPORTED). */
    FX_MAX_AGE: duration('48h'),
    /** Exchange rates: `mock` (fixed published rates, development) or `http` (a USD-based JSON feed at FX_HTTP_URL). */
    FX_SOURCE: z.enum(['mock', 'http']).default('mock'),
    FX_HTTP_URL: z.url().optional(),
    FX_HTTP_TOKEN: z.string().min(1).optional(),
    FX_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    FX_HTTP_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    /** The mock store's pending orders (delayed, identity check) complete this long after their placement. */
    MOCK_STORE_CALLBACK_DELAY: duration('2s'),
    /** Mock store providers whose health check fails (comma-separated slugs), to reach STORE_PROVIDER_UNAVAILABLE. */
    MOCK_STORE_UNHEALTHY: z.string().optional(),
    /** Where the mock store sends its signed callbacks (the API's POST /webhooks/esim-provider); default: PUBLIC_BASE_URL's. */
    MOCK_STORE_CALLBACK_URL: z.url().optional(),
    /** A store order still unpaid this long after its creation expires. */
    STORE_ORDER_PAYMENT_TTL: duration('30m'),
    /** A paid (or requeued) store order without a profile this long after fails, with a refund record. */
    STORE_DELIVERY_DEADLINE: duration('70m'),
    /** How often a store order's run reads a pending order from its provider (and checks an unpaid order's row) without a signal. */
    STORE_ORDER_POLL_EVERY: duration('2m'),
    // --- Account deletion (src/compliance/): how long personal data is kept after a deletion request. ---
    /** Days from a deletion request (POST /auth/me/deletion-request) to the erasure of the person's data. */
    RETENTION_DAYS: z.coerce.number().int().min(0).max(36500).default(365),
    /** How often the Temporal Schedule `retention-erasure` erases the accounts past their retainUntil. */
    RETENTION_ERASE_EVERY: duration('24h'),
    /**
     * Check every answer against the OpenAPI document (status, body schema, required headers) and
     * answer INTERNAL_ERROR instead of a drifting one. Unset: on except in production.
     */
    CONTRACT_CHECKS: bool.optional(),
    /** Who takes payments: the local mock (completes card-like and wallet-token payments at once) or the card processor. */
    PAYMENT_PROVIDER: z.enum(['mock', 'card_processor']).default('mock'),
    /** Secret API key of the card processor; required when PAYMENT_PROVIDER=card_processor. */
    CARD_PROCESSOR_API_KEY: z.string().min(1).optional(),
    /** Override of the processor's API origin (e.g. a local stub); unset: the library's default host. */
    CARD_PROCESSOR_API_BASE_URL: z.url().optional(),
    /** Signing secret of the card processor's webhook endpoint (`Processor-Signature`). */
    CARD_PROCESSOR_WEBHOOK_SECRET: z.string().min(16).default(DEV_WEBHOOK_SECRET),
    /** Oldest (and furthest in the future) a signed webhook timestamp may be, in seconds. */
    CARD_PROCESSOR_WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().positive().default(300),
    /** A payment waiting on the processor that hears nothing this long asks the processor for the intent. */
    PAYMENT_SETTLEMENT_SILENCE_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60),
    /** Lookups before the settlement workflow stops polling an intent that stays open (a later webhook still settles it). */
    PAYMENT_SETTLEMENT_MAX_LOOKUPS: z.coerce.number().int().positive().default(96),
    /**
     * A settled run stays open this long for late deliveries, so a webhook that read the payment
     * as processing just before it settled still lands in the same run (one run per payment).
     * Must exceed the webhook's 5 s hand-over deadline.
     */
    PAYMENT_SETTLEMENT_LINGER_SECONDS: z.coerce.number().int().min(0).default(60),
    /**
     * The webhook relay (src/webhooks/relay.ts, run by the worker) hands inbox rows to the settlement
     * workflows: this many payments per claim, a poll this often when no notification comes, and
     * waits of at most this long while deliveries fail (Temporal away).
     */
    WEBHOOK_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
    WEBHOOK_RELAY_POLL_SECONDS: z.coerce.number().positive().default(5),
    WEBHOOK_RELAY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(10),
    /**
     * The start relay (src/workflow-starts/relay.ts, run by the worker) starts the runs the API could
     * not start at once (Temporal away, or the API died after its commit): this many per claim, a poll
     * this often when no notification comes, waits of at most this long while Temporal refuses.
     */
    START_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
    START_RELAY_POLL_SECONDS: z.coerce.number().positive().default(5),
    START_RELAY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(10),
    /**
     * The signal relay (src/workflow-signals/relay.ts, run by the worker) delivers the signals the API
     * could not deliver at once (Temporal away, or the API died after its commit), in order per run:
     * this many per claim, a poll this often when no notification comes, and waits of at most this long
     * while Temporal refuses (short: a run learns within about this long of Temporal coming back).
     */
    SIGNAL_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
    SIGNAL_RELAY_POLL_SECONDS: z.coerce.number().positive().default(5),
    SIGNAL_RELAY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(1),
    /**
     * The message relay (src/messages/relay.ts, run by the worker) delivers the one-time codes a provider
     * did not take within their request, until each code expires: this many per claim, a poll this often
     * when no notification comes, waits of at most this long while the providers refuse.
     */
    MESSAGE_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(20),
    MESSAGE_RELAY_POLL_SECONDS: z.coerce.number().positive().default(5),
    MESSAGE_RELAY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(10),
    /** PEM public key of the eSIM provider's callback signatures (RSA-SHA256); `\\n` escapes allowed. */
    ESIM_PROVIDER_PUBLIC_KEY: z
      .string()
      .transform((v) => v.replace(/\\n/g, '\n'))
      .default(DEV_ESIM_PROVIDER_PUBLIC_KEY),
    /** Our merchant id at the eSIM provider: callbacks naming another merchant are refused. */
    ESIM_PROVIDER_MERCHANT_ID: z.string().min(1).default('dev-merchant'),
    /** Activation timers (workflow configuration). */
    ACTIVATION_CANCEL_AFTER_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(24 * 3600),
    IDENTITY_POLL_INTERVAL_SECONDS: z.coerce.number().int().positive().default(5),
    /** Safety net for a lost "order paid" signal: the workflow checks the order this often. */
    ACTIVATION_PAID_CHECK_SECONDS: z.coerce.number().int().positive().default(300),
    IDENTITY_REQUEST_TTL_SECONDS: z.coerce.number().int().positive().default(300),
    /**
     * Tests only, refused in production: `crash-after-activation-commit` makes the API kill itself
     * (SIGKILL) after an activation's rows commit and before its workflow starts.
     */
    FAULT_INJECTION: z.enum(['crash-after-activation-commit']).optional(),
    /**
     * Tests and the replay corpus (`npm run corpus`): company and quote runs started from now continue as new
     * after this many handled events or actions, instead of their workflows' own 500.
     */
    WORKFLOW_CONTINUE_AS_NEW_AFTER: z.coerce.number().int().positive().optional(),
    // --- Housekeeping: Temporal Schedules `housekeeping-*` (src/housekeeping/schedules.ts), created by the
    // worker. How often each purge runs, and how long rows are kept once they ended. ---
    HOUSEKEEPING_OTP_EVERY_SECONDS: z.coerce.number().int().positive().default(3600),
    HOUSEKEEPING_SESSIONS_EVERY_SECONDS: z.coerce.number().int().positive().default(3600),
    HOUSEKEEPING_RATE_LIMITS_EVERY_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60),
    HOUSEKEEPING_WEBHOOK_RECEIPTS_EVERY_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(24 * 3600),
    /** An expired one-time code is kept this long: a late attempt reads AUTH_EXPIRED_OTP until then, AUTH_INVALID_OTP after. */
    HOUSEKEEPING_OTP_KEEP_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .default(24 * 3600),
    /** Sessions, blocklisted tokens and rate-limit windows are purged this long after they end (the API's and worker's clocks may differ). */
    HOUSEKEEPING_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).default(300),
    /**
     * eSIM callback receipts (de-duplication only) are kept this many days. A purged receipt lets a
     * redelivery of the same (order, status) through again, so this must outlast every provider's redeliveries.
     */
    HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS: z.coerce.number().int().min(7).default(90),
    /** Rows deleted per statement (one short transaction each). */
    HOUSEKEEPING_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1000),
    // --- Telemetry (src/telemetry, docs/configuration.md "Telemetry"). The standard OTEL_* variables,
    // read by OpenTelemetry's SDK itself; checked here so a wrong value stops the start, naming it. ---
    /** Every signal off (tracing and metrics), as the specification says. */
    OTEL_SDK_DISABLED: bool.default(false),
    /** service.name of the spans and metrics; unset: activation-sys-api / activation-sys-worker. */
    OTEL_SERVICE_NAME: z.string().min(1).optional(),
    /** More resource attributes, `key=value,key2=value2` (deployment.environment.name=eu, ...). */
    OTEL_RESOURCE_ATTRIBUTES: z.string().min(1).optional(),
    /** Where spans go: otlp, console or none (a list); unset: otlp when an OTLP endpoint is set, else tracing is off. */
    OTEL_TRACES_EXPORTER: z
      .string()
      .refine((v) => v.split(',').every((name) => (TRACES_EXPORTERS as readonly string[]).includes(name.trim())), {
        message: `must list ${TRACES_EXPORTERS.join(', ')}`,
      })
      .optional(),
    /** The OTLP collector: its base URL (spans go to <url>/v1/traces), or the traces URL itself. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
    /** grpc, http/protobuf (the default) or http/json. */
    OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
    /** Headers for the collector, `key=value,key2=value2` (e.g. an API key). */
    OTEL_EXPORTER_OTLP_HEADERS: z.string().min(1).optional(),
    /** The specification's samplers; unset: parentbased_traceidratio (src/telemetry/tracing.ts). */
    OTEL_TRACES_SAMPLER: z
      .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
      .optional(),
    /** The ratio of the traceidratio samplers, 0 to 1; unset: 0.1 (one trace begun here in ten is kept). */
    OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
    /** How trace context crosses processes (tracecontext,baggage by default). */
    OTEL_PROPAGATORS: z.string().min(1).optional(),
    /** How long ended spans wait to be exported together, in milliseconds (the SDK's default: 5000). */
    OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().positive().optional(),
    /** The Prometheus listener (its own port, never the API's): on or off, the address it binds, its path. */
    METRICS_ENABLED: bool.default(true),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    /** The API's metrics port. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    /** The worker's metrics port (its own metrics and the Temporal SDK's). */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
    METRICS_PATH: z
      .string()
      .regex(/^\/[\w./-]*$/, 'must be a path starting with /')
      .default('/metrics'),
    /** How long the mock identity provider takes to reach its outcome. */
    MOCK_IDENTITY_DELAY_MS: z.coerce.number().int().min(0).default(3000),
    /** How long each mock operator handoff (SIM activation, eSIM issuance) takes. */
    MOCK_OPERATOR_DELAY_MS: z.coerce.number().int().min(0).default(0),
    EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(54329),
    EMBEDDED_PG_DIR: z.string().default('.data/pg'),
  })
  .superRefine((env, ctx) => {
    if (Buffer.from(env.DATA_ENCRYPTION_KEY, 'base64').length !== 32) {
      ctx.addIssue({ code: 'custom', path: ['DATA_ENCRYPTION_KEY'], message: 'must be base64 of exactly 32 bytes' });
    }
    // The metrics listener is a second server: on the API's port one of the two could not listen.
    if (env.METRICS_ENABLED && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT (the metrics have a listener of their own)' });
    }
  });

type Parsed = z.infer<typeof schema>;
export type Config = Omit<Parsed, 'FEATURE_ESIM_STORE'> & { FEATURE_ESIM_STORE: boolean };

/** Every variable the service reads (.env.example lists each; a test keeps them in step). */
export const CONFIG_KEYS = Object.keys(schema.shape) as Array<keyof Config>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // `KEY=` (as in .env.example copied to .env) means unset: the default, or "must be set in production".
  const raw = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')) as RawEnv;
  const parsed = schema.safeParse(raw);
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const lines = [...new Set([...issues, ...refusals(raw).map(([key, message]) => `  ${key}: ${message}`)])];
  if (!parsed.success || lines.length > 0) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  // The store is on in development unless said otherwise; elsewhere it must be turned on.
  return { ...parsed.data, FEATURE_ESIM_STORE: parsed.data.FEATURE_ESIM_STORE ?? parsed.data.NODE_ENV === 'development' };
}

// --- Refusals: stand-ins, development defaults, providers without their settings. ---
// Checked on the raw environment, each setting read on its own, so one error lists every problem
// even when another field is invalid (zod skips object refinements then).

type RawEnv = Record<string, string>;

/** Development stand-ins production refuses, and what each would do there. */
const STAND_INS: Array<[ProviderKey, string, string]> = [
  ['PAYMENT_PROVIDER', 'mock', 'it completes payments without taking money; use card_processor'],
  ['EMAIL_PROVIDER', 'file', 'it writes e-mails (sign-in links) to a local file; use smtp'],
  ['SMS_PROVIDER', 'file', 'it writes SMS (one-time codes) to a local file; use http'],
  ['IDENTITY_PROVIDER', 'mock', 'it verifies any id number; use http'],
  ['OPERATOR_PROVIDER', 'mock', 'its operators activate nothing; use http'],
];
type ProviderKey =
  'PAYMENT_PROVIDER' | 'EMAIL_PROVIDER' | 'SMS_PROVIDER' | 'IDENTITY_PROVIDER' | 'OPERATOR_PROVIDER' | 'STORE_PROVIDER' | 'FX_SOURCE';

/** The store's stand-ins: refused in production while the store is on (off, nothing runs them: no route, no schedule). */
const STORE_STAND_INS: Array<[ProviderKey, string, string]> = [
  ['STORE_PROVIDER', 'mock', 'its providers issue fake eSIM profiles; use http'],
  ['FX_SOURCE', 'mock', 'it publishes fixed exchange rates; use http'],
];

/** What a real provider cannot work without, whatever NODE_ENV says. */
const PROVIDER_NEEDS: Array<[ProviderKey, string, keyof Config]> = [
  ['PAYMENT_PROVIDER', 'card_processor', 'CARD_PROCESSOR_API_KEY'],
  ['EMAIL_PROVIDER', 'smtp', 'SMTP_HOST'],
  ['SMS_PROVIDER', 'http', 'SMS_HTTP_URL'],
  ['IDENTITY_PROVIDER', 'http', 'IDENTITY_HTTP_URL'],
  ['OPERATOR_PROVIDER', 'http', 'OPERATOR_HTTP_ENDPOINTS'],
  ['STORE_PROVIDER', 'http', 'STORE_HTTP_URL'],
  ['STORE_PROVIDER', 'http', 'STORE_HTTP_CLIENT_ID'],
  ['STORE_PROVIDER', 'http', 'STORE_HTTP_CLIENT_SECRET'],
  ['FX_SOURCE', 'http', 'FX_HTTP_URL'],
];

/** Secrets whose development default is public (it is in this file): production must set its own. */
const DEV_SECRETS: Array<[keyof Config, string]> = [
  ['JWT_SECRET', DEV_SECRET],
  ['DATA_HASH_KEY', DEV_SECRET],
  ['DATA_ENCRYPTION_KEY', DEV_DATA_KEY],
  ['CARD_PROCESSOR_WEBHOOK_SECRET', DEV_WEBHOOK_SECRET],
  ['ESIM_PROVIDER_PUBLIC_KEY', DEV_ESIM_PROVIDER_PUBLIC_KEY],
];

/** Settings whose default only makes sense on a developer's machine, and why production must say. */
const DEV_DEFAULTS: Array<[keyof Config, string]> = [
  ['DATABASE_URL', 'must be set in production'],
  ['TEMPORAL_PAYLOAD_KEYS', 'must be set in production (unset, workflow payloads are encrypted with a development key)'],
  ['PUBLIC_BASE_URL', 'must be set in production (the default is http://localhost:3000)'],
  ['ESIM_PROVIDER_MERCHANT_ID', 'must be set in production (the default is dev-merchant)'],
];

/** One setting as the schema reads it (its default when unset), or undefined when invalid (the schema names it). */
function setting<K extends keyof Config>(raw: RawEnv, key: K): Config[K] | undefined {
  const result = schema.shape[key].safeParse(raw[key]);
  return result.success ? (result.data as Config[K]) : undefined;
}

function refusals(raw: RawEnv): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const [provider, value, needed] of PROVIDER_NEEDS) {
    if (setting(raw, provider) === value && raw[needed] === undefined) found.push([needed, `must be set when ${provider}=${value}`]);
  }
  // The webhook is how card payments settle: with the public development secret anyone could forge one.
  if (setting(raw, 'PAYMENT_PROVIDER') === 'card_processor' && isDevSecret(raw, 'CARD_PROCESSOR_WEBHOOK_SECRET', DEV_WEBHOOK_SECRET)) {
    found.push(['CARD_PROCESSOR_WEBHOOK_SECRET', 'must be set when PAYMENT_PROVIDER=card_processor (the development secret is public)']);
  }
  if (setting(raw, 'EMAIL_PROVIDER') === 'smtp' && setting(raw, 'SMTP_USER') !== undefined && raw.SMTP_PASSWORD === undefined) {
    found.push(['SMTP_PASSWORD', 'must be set when SMTP_USER is']);
  }
  found.push(...tlsRefusals(raw));
  const [grace, force] = [setting(raw, 'WORKER_SHUTDOWN_GRACE_SECONDS'), setting(raw, 'WORKER_SHUTDOWN_FORCE_SECONDS')];
  if (grace !== undefined && force !== undefined && force <= grace) {
    found.push(['WORKER_SHUTDOWN_FORCE_SECONDS', `must be longer than WORKER_SHUTDOWN_GRACE_SECONDS (${force} <= ${grace})`]);
  }
  if (setting(raw, 'NODE_ENV') === 'production') found.push(...productionRefusals(raw));
  // One line per setting: the first reason found is the most specific.
  return [...new Map(found.reverse()).entries()].reverse();
}

function productionRefusals(raw: RawEnv): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const storeOn = setting(raw, 'FEATURE_ESIM_STORE') === true;
  for (const [key, standIn, why] of [...STAND_INS, ...(storeOn ? STORE_STAND_INS : [])]) {
    if (setting(raw, key) === standIn) found.push([key, `${standIn} is refused in production: ${why}`]);
  }
  for (const [key, dev] of DEV_SECRETS) {
    if (isDevSecret(raw, key, dev)) found.push([key, 'must be set in production']);
  }
  for (const [key, message] of DEV_DEFAULTS) {
    if (raw[key] === undefined) found.push([key, message]);
  }
  if (setting(raw, 'EMAIL_PROVIDER') === 'smtp' && raw.SMTP_FROM === undefined) {
    found.push(['SMTP_FROM', 'must be set in production (the default sender is no-reply@localhost)']);
  }
  if (raw.FAULT_INJECTION !== undefined) found.push(['FAULT_INJECTION', 'is refused in production: it makes the process crash on purpose']);
  found.push(...plaintextRefusals(raw), ...plainHttpRefusals(raw));
  return found;
}

/** Settings that must come in pairs or agree, whatever NODE_ENV says: one alone would be silently ignored. */
function tlsRefusals(raw: RawEnv): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const database = raw.DATABASE_URL === undefined ? undefined : parsePostgresUrl(raw.DATABASE_URL);
  if (database && 'error' in database) found.push(['DATABASE_URL', database.error]);
  const sslmode = database && 'url' in database ? database.url.sslmode : 'disable';
  if (raw.DATABASE_SSL_CA_FILE !== undefined && sslmode === 'disable') {
    found.push(['DATABASE_SSL_CA_FILE', 'needs sslmode=require, verify-ca or verify-full in DATABASE_URL']);
  }
  if (raw.TEMPORAL_TLS_CERT_FILE !== undefined && raw.TEMPORAL_TLS_KEY_FILE === undefined) {
    found.push(['TEMPORAL_TLS_KEY_FILE', 'must be set with TEMPORAL_TLS_CERT_FILE (the client certificate needs its key)']);
  }
  if (raw.TEMPORAL_TLS_KEY_FILE !== undefined && raw.TEMPORAL_TLS_CERT_FILE === undefined) {
    found.push(['TEMPORAL_TLS_CERT_FILE', 'must be set with TEMPORAL_TLS_KEY_FILE (the key needs its client certificate)']);
  }
  if (setting(raw, 'TEMPORAL_TLS') === false) {
    const needing = TEMPORAL_TLS_SETTINGS.filter((key) => raw[key] !== undefined);
    if (needing.length > 0)
      found.push(['TEMPORAL_TLS', `is false, but ${needing.join(', ')} ${needing.length > 1 ? 'need' : 'needs'} TLS`]);
  }
  return found;
}

/** Settings that only mean something over TLS to Temporal; any of them turns it on unless TEMPORAL_TLS says. */
const TEMPORAL_TLS_SETTINGS = [
  'TEMPORAL_TLS_CA_FILE',
  'TEMPORAL_TLS_CERT_FILE',
  'TEMPORAL_TLS_KEY_FILE',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_API_KEY',
] as const satisfies ReadonlyArray<keyof Config>;

export type TemporalTlsSettings = Partial<Pick<Config, 'TEMPORAL_TLS' | (typeof TEMPORAL_TLS_SETTINGS)[number]>>;

/** Whether the Temporal client and worker connect with TLS (src/temporal/connection.ts). */
export function temporalUsesTls(config: TemporalTlsSettings): boolean {
  return config.TEMPORAL_TLS ?? TEMPORAL_TLS_SETTINGS.some((key) => config[key] !== undefined);
}

/**
 * The hosts production may reach without (checked) TLS: this one (loopback), and those PLAINTEXT_HOSTS
 * lists, the one explicit exception for a private network (compose's postgres, temporal, its local stub).
 */
function plaintextAllowed(raw: RawEnv): (host: string) => boolean {
  const listed = setting(raw, 'PLAINTEXT_HOSTS') ?? [];
  return (host) => isLoopbackHost(host) || listed.includes(host.replace(/^\[|\]$/g, '').toLowerCase());
}

/**
 * Production: a remote Postgres without a TLS mode that checks who answers, or a remote Temporal without
 * TLS, unless PLAINTEXT_HOSTS names the host (there plaintext is accepted, so any mode is).
 */
function plaintextRefusals(raw: RawEnv): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const allowed = plaintextAllowed(raw);
  const refused = (host: string) => !allowed(host);
  const database = raw.DATABASE_URL === undefined ? undefined : parsePostgresUrl(raw.DATABASE_URL);
  if (database && 'url' in database && refused(database.url.host)) {
    const why = unverifiedPostgres(database.url, raw.DATABASE_SSL_CA_FILE !== undefined);
    if (why) found.push(['DATABASE_URL', why]);
  }
  const temporalHost = hostOfAddress(setting(raw, 'TEMPORAL_ADDRESS') ?? '');
  const tls = temporalUsesTls({
    TEMPORAL_TLS: setting(raw, 'TEMPORAL_TLS'),
    ...Object.fromEntries(TEMPORAL_TLS_SETTINGS.filter((key) => raw[key] !== undefined).map((key) => [key, raw[key]])),
  });
  if (!tls && refused(temporalHost)) {
    found.push([
      'TEMPORAL_ADDRESS',
      `${temporalHost} is not a loopback address and the connection has no TLS: set TEMPORAL_TLS=true (TEMPORAL_TLS_CA_FILE for a ` +
        `private CA, TEMPORAL_TLS_CERT_FILE/KEY_FILE or TEMPORAL_API_KEY for Temporal Cloud), or list the host in PLAINTEXT_HOSTS ` +
        `if the network in between is private`,
    ]);
  }
  return found;
}

/**
 * Why a connection to a remote Postgres would not know whom it talks to, or undefined when it would:
 * verify-full checks the chain and the host name; verify-ca checks only the chain, which is enough when
 * the chain must end at a private CA (DATABASE_SSL_CA_FILE) and not at any public CA the system trusts.
 */
function unverifiedPostgres(url: PostgresUrl, caFile: boolean): string | undefined {
  const fix =
    'use sslmode=verify-full (DATABASE_SSL_CA_FILE for a private CA), or list the host in PLAINTEXT_HOSTS if the network in between is private';
  if (url.sslmode === 'disable') return `${url.host} is not a loopback address and the connection has no TLS: ${fix}`;
  if (url.sslmode === 'require' && !caFile) {
    return `sslmode=require does not check the certificate (anyone on the path could answer for ${url.host}): ${fix}`;
  }
  if (url.sslmode === 'require') {
    // libpq's reading (a CA file turns require into verify-ca) is easy to lose with the file: the mode must say it.
    return `sslmode=require checks the certificate only while DATABASE_SSL_CA_FILE is set: say sslmode=verify-full or verify-ca`;
  }
  if (url.sslmode === 'verify-ca' && !caFile) {
    return `sslmode=verify-ca without DATABASE_SSL_CA_FILE accepts a certificate any public CA signed, for any name: ${fix}, or set DATABASE_SSL_CA_FILE to the server's private CA`;
  }
  return undefined;
}

/** The URLs production sends data to over HTTP, and what http:// would let cross the network in clear. */
const HTTP_ENDPOINTS = [
  ['SMS_HTTP_URL', 'phone numbers, one-time codes and SMS_HTTP_TOKEN'],
  ['IDENTITY_HTTP_URL', 'national id numbers and IDENTITY_HTTP_TOKEN'],
  ['STORE_HTTP_URL', 'the client secret, orders and eSIM profiles'],
  ['FX_HTTP_URL', 'FX_HTTP_TOKEN and the rates prices are made from'],
  ['CARD_PROCESSOR_API_BASE_URL', 'CARD_PROCESSOR_API_KEY and payments'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'spans (routes, statements, ids)'],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'spans (routes, statements, ids)'],
] as const satisfies ReadonlyArray<readonly [keyof Config, string]>;

/** Production: every provider URL (and the OTLP collector) over http:// to a host plaintext may not reach. */
function plainHttpRefusals(raw: RawEnv): Array<[string, string]> {
  const allowed = plaintextAllowed(raw);
  const found: Array<[string, string]> = [];
  for (const [key, what] of HTTP_ENDPOINTS) {
    const url = setting(raw, key);
    const host = url === undefined ? undefined : plainRemoteHost(url, allowed);
    if (host !== undefined) found.push([key, plainHttpMessage(host, what)]);
  }
  for (const { slug, baseUrl } of operatorEndpoints(raw)) {
    const host = plainRemoteHost(baseUrl, allowed);
    if (host !== undefined) {
      found.push([
        'OPERATOR_HTTP_ENDPOINTS',
        plainHttpMessage(`${host}, operator ${slug}`, 'SIM serials, eSIM activation codes and OPERATOR_HTTP_TOKEN'),
      ]);
    }
  }
  return found;
}

/** The host of an http:// URL that plaintext may not reach, or undefined (https://, loopback, listed). */
function plainRemoteHost(url: string, allowed: (host: string) => boolean): string | undefined {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && !allowed(hostname) ? hostname : undefined;
}

function plainHttpMessage(where: string, what: string): string {
  return (
    `http:// to another host (${where}) is refused in production: ${what} would cross the network in clear text; ` +
    'use https://, a service on this host (loopback), or list the host in PLAINTEXT_HOSTS if the network in between is private'
  );
}

/** OPERATOR_HTTP_ENDPOINTS as the operators read it; none when it does not parse (the providers name that at start). */
function operatorEndpoints(raw: RawEnv): Array<{ slug: string; baseUrl: string }> {
  if (raw.OPERATOR_HTTP_ENDPOINTS === undefined) return [];
  try {
    return parseOperatorEndpoints(raw.OPERATOR_HTTP_ENDPOINTS);
  } catch {
    return [];
  }
}

/** Unset, or set to the public development value. */
function isDevSecret(raw: RawEnv, key: keyof Config, dev: string): boolean {
  return raw[key] === undefined || setting(raw, key) === dev;
}
