import { defineEntity, p } from '@mikro-orm/core';
import { Order } from './order';
import { User } from './user';

export const PAYMENT_METHODS = [
  'local_debit',
  'card_scheme_1',
  'card_scheme_2',
  'generic_processor',
  'wallet_token',
  'mobile_wallet',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/** Which provider implementation handled the payment. */
export const PAYMENT_PROVIDERS = ['mock', 'card_processor'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/**
 * What a payments row may hold besides what a request can ask for: the synthetic corporate payment of
 * a company seat (POST /activations, company branch) is method `company_account`, provider `company`.
 * Request schemas keep PAYMENT_METHODS, so no request can name it; no processor or webhook sees it.
 */
export const PAYMENT_ROW_METHODS = [...PAYMENT_METHODS, 'company_account'] as const;
export type PaymentRowMethod = (typeof PAYMENT_ROW_METHODS)[number];
export const PAYMENT_ROW_PROVIDERS = [...PAYMENT_PROVIDERS, 'company'] as const;
export type PaymentRowProvider = (typeof PAYMENT_ROW_PROVIDERS)[number];

/**
 * One payment attempt for an order. Amount and currency are copied from the
 * order at create time (never from the request); the amount is in integer minor
 * units of `currency` (2 decimals for every currency the service handles: SAR,
 * the only one it writes, and USD in fixtures; src/lib/money.ts formats them).
 * (user, idempotency key) is unique, so a replay finds the first attempt;
 * an order has at most one live (`pending` or `processing`) payment.
 */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    order: () => p.manyToOne(Order).mapToPk().index(),
    user: () => p.manyToOne(User).mapToPk(),
    method: p.enum(PAYMENT_ROW_METHODS),
    provider: p.enum(PAYMENT_ROW_PROVIDERS),
    status: p.enum(PAYMENT_STATUSES).default('pending'),
    amountMinor: p.bigint('number'),
    currency: p.string().length(3),
    idempotencyKey: p.string().length(128),
    /** SHA-256 of the parameters that must match on a replay (route, order, method). */
    requestFingerprint: p.string().length(64),
    gatewayTransactionId: p.string().length(255).nullable().index(),
    clientSecret: p.string().length(512).nullable(),
    redirectUrl: p.string().length(1024).nullable(),
    receiptNumber: p.string().length(40).nullable().unique(),
    failureReason: p.text().nullable(),
    paidAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [
    { name: 'payments_user_idempotency_key_unique', properties: ['user', 'idempotencyKey'] },
    // One live payment per order: a second intent that could also be confirmed is refused by the database.
    { name: 'payments_order_live_unique', properties: ['order'], where: "status in ('pending', 'processing')" },
  ],
});

export const WEBHOOK_PROVIDERS = ['card_processor', 'esim_provider'] as const;

/**
 * Inbound provider events: a minimal receipt per delivery (idempotency), and
 * reconciliation records for mismatches. Never holds raw payloads or credentials.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    provider: p.enum(WEBHOOK_PROVIDERS),
    eventId: p.string().length(255),
    type: p.string().length(100),
    paymentId: p.uuid().nullable().index(),
    /** received, settled, failed, ignored, mismatch, unknown_order, … */
    outcome: p.string().length(32),
    detail: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
  uniques: [{ name: 'webhook_events_provider_event_unique', properties: ['provider', 'eventId'] }],
  // Housekeeping finds old de-duplication receipts by provider, outcome and age.
  indexes: [{ name: 'webhook_events_receipts_index', properties: ['provider', 'outcome', 'createdAt'] }],
});
