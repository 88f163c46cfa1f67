import { z } from 'zod';

/**
 * Configuration comes from the environment only, validated once at start.
 * Development defaults exist for everything except production secrets: with
 * NODE_ENV=production a missing secret stops start-up with a clear message.
 */
const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';
// 32 zero-ish bytes, base64: never valid in production (see refine below).
const DEV_DATA_KEY = Buffer.alloc(32, 7).toString('base64');

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
    /** Unset: an embedded PostgreSQL is started (development, tests). */
    DATABASE_URL: z.string().optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('activation-sys'),
    /** Set false where the namespace lacks our custom search attributes. */
    TEMPORAL_SEARCH_ATTRIBUTES: bool.default(true),
    JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').default(DEV_SECRET),
    JWT_ISSUER: z.string().default('activation-sys'),
    JWT_AUDIENCE: z.string().default('activation-sys-api'),
    WEB_SESSION_SECONDS: z.coerce.number().int().positive().default(3600),
    /** How long a verified session is served from memory (0 disables); changes evict at once. */
    SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).default(30),
    MOBILE_SESSION_SECONDS: z.coerce.number().int().positive().default(30 * 24 * 3600),
    /** AES-256-GCM key for personal data at rest, base64 of 32 bytes. */
    DATA_ENCRYPTION_KEY: z.string().default(DEV_DATA_KEY),
    /** HMAC key for lookup hashes of phone, e-mail and id numbers. */
    DATA_HASH_KEY: z.string().min(32, 'DATA_HASH_KEY must be at least 32 characters').default(DEV_SECRET),
    RATE_LIMIT_MAX: z.coerce.number().int().positive().default(100),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(15 * 60),
    /** How often each instance adds its local counts to the shared Postgres counters. */
    RATE_LIMIT_SYNC_MS: z.coerce.number().int().positive().default(100),
    OTP_TTL_SECONDS: z.coerce.number().int().positive().default(300),
    OTP_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
    OTP_MAX_REQUESTS: z.coerce.number().int().positive().default(3),
    OTP_WINDOW_SECONDS: z.coerce.number().int().positive().default(15 * 60),
    MESSAGES_FILE: z.string().default('.data/messages.jsonl'),
    MESSAGE_PROVIDER: z.enum(['file']).default('file'),
    TRUST_PROXY: z.string().default('loopback'),
    FEATURE_ESIM: bool.default(true),
    /** Activation timers (workflow configuration). */
    ACTIVATION_CANCEL_AFTER_SECONDS: z.coerce.number().int().positive().default(24 * 3600),
    IDENTITY_POLL_INTERVAL_SECONDS: z.coerce.number().int().positive().default(5),
    /** Safety net for a lost "order paid" signal: the workflow checks the order this often. */
    ACTIVATION_PAID_CHECK_SECONDS: z.coerce.number().int().positive().default(300),
    IDENTITY_REQUEST_TTL_SECONDS: z.coerce.number().int().positive().default(300),
    /** How long the mock identity provider takes to reach its outcome. */
    MOCK_IDENTITY_DELAY_MS: z.coerce.number().int().min(0).default(3000),
    EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(54329),
    EMBEDDED_PG_DIR: z.string().default('.data/pg'),
  })
  .superRefine((env, ctx) => {
    if (Buffer.from(env.DATA_ENCRYPTION_KEY, 'base64').length !== 32) {
      ctx.addIssue({ code: 'custom', path: ['DATA_ENCRYPTION_KEY'], message: 'must be base64 of exactly 32 bytes' });
    }
    if (env.NODE_ENV !== 'production') return;
    const devValues: Array<[keyof typeof env, string]> = [
      ['JWT_SECRET', DEV_SECRET],
      ['DATA_HASH_KEY', DEV_SECRET],
      ['DATA_ENCRYPTION_KEY', DEV_DATA_KEY],
    ];
    for (const [key, dev] of devValues) {
      if (env[key] === dev) ctx.addIssue({ code: 'custom', path: [key], message: 'must be set in production' });
    }
    if (!env.DATABASE_URL) ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: 'must be set in production' });
  });

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
