import { generateKeyPairSync } from 'node:crypto';

let esimKey: string | undefined;

/**
 * A complete production configuration: every real provider with its settings, every secret
 * set. Tests take one thing away or swap one stand-in back in and expect it named.
 */
export function productionEnv(): Record<string, string> {
  esimKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://app:secret@db.internal:5432/activation_sys?sslmode=verify-full',
    PUBLIC_BASE_URL: 'https://api.example.com',
    JWT_SECRET: 'p'.repeat(40),
    DATA_HASH_KEY: 'h'.repeat(40),
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    TEMPORAL_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 5).toString('base64')}`,
    PAYMENT_PROVIDER: 'card_processor',
    CARD_PROCESSOR_API_KEY: 'sk_live_' + 'a'.repeat(24),
    CARD_PROCESSOR_WEBHOOK_SECRET: 'whsec_' + 'w'.repeat(32),
    ESIM_PROVIDER_PUBLIC_KEY: esimKey,
    ESIM_PROVIDER_MERCHANT_ID: 'merchant-42',
    EMAIL_PROVIDER: 'smtp',
    SMTP_HOST: 'smtp.example.com',
    SMTP_USER: 'mailer',
    SMTP_PASSWORD: 'mail-password',
    SMTP_FROM: 'Activation <no-reply@example.com>',
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: 'https://sms.example.com/send',
    IDENTITY_PROVIDER: 'http',
    IDENTITY_HTTP_URL: 'https://identity.example.com',
    OPERATOR_PROVIDER: 'http',
    OPERATOR_HTTP_ENDPOINTS: 'stc=https://stc.example.com,mobily=https://mobily.example.com',
  };
}
