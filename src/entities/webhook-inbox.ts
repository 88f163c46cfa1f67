import { defineEntity, p } from '@mikro-orm/core';
import { Payment, PAYMENT_PROVIDERS } from './payment';

/** pending: waiting for the relay; delivered: signalled to its settlement workflow; skipped: could no longer change the payment. */
export const WEBHOOK_INBOX_STATUSES = ['pending', 'delivered', 'skipped'] as const;
export type WebhookInboxStatus = (typeof WEBHOOK_INBOX_STATUSES)[number];

/** The processor events a settlement workflow takes (its signal's types). */
export const WEBHOOK_INBOX_EVENT_TYPES = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled'] as const;

/**
 * The webhook inbox (src/webhooks/inbox.ts): a verified processor event that can still change a
 * payment, kept until the relay (src/webhooks/relay.ts) has handed it to the payment's settlement
 * workflow. One row per (provider, event id): a redelivery adds nothing. `id` is the arrival
 * order, which the relay keeps per payment. An insert NOTIFYs `webhook_inbox` (a trigger). Holds
 * the facts the workflow needs, never the payload.
 */
export const WebhookInboxEvent = defineEntity({
  name: 'WebhookInboxEvent',
  tableName: 'webhook_inbox',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    /** `card_processor`, or `mock` for the development mock wallet page. */
    provider: p.enum(PAYMENT_PROVIDERS),
    eventId: p.string().length(255),
    payment: () => p.manyToOne(Payment).mapToPk(),
    type: p.enum(WEBHOOK_INBOX_EVENT_TYPES),
    /** payment_failed: the processor's last payment error message. */
    failureMessage: p.string().length(500).nullable(),
    receivedAt: p.datetime(),
    status: p.enum(WEBHOOK_INBOX_STATUSES).default('pending'),
    /** Hand-over attempts so far (the failed ones, plus the one that delivered). */
    attempts: p.integer().default(0),
    /** Not claimed before this (backoff after a failed attempt). */
    nextAttemptAt: p.datetime(),
    /** The last failed attempt's error (class and message, no payload). */
    lastError: p.string().length(500).nullable(),
    /** When it was delivered or skipped. */
    handledAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'webhook_inbox_provider_event_unique', properties: ['provider', 'eventId'] }],
  indexes: [
    // The relay's claim: a payment's pending rows in arrival order (the head is the one to deliver).
    {
      name: 'webhook_inbox_pending_index',
      expression: `create index "webhook_inbox_pending_index" on "webhook_inbox" ("payment_id", "id") where "status" = 'pending'`,
    },
    // Housekeeping's purge of rows the relay finished with.
    {
      name: 'webhook_inbox_handled_index',
      expression: `create index "webhook_inbox_handled_index" on "webhook_inbox" ("handled_at") where "status" <> 'pending'`,
    },
  ],
});
