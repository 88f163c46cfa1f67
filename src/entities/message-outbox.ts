import { defineEntity, p } from '@mikro-orm/core';

/** pending: waiting for the message relay; failed: given up (kept, without the message, for operators to count). */
export const MESSAGE_OUTBOX_STATUSES = ['pending', 'failed'] as const;
/** Why a message was given up: its code expired before a provider took it, or the provider refused it for good. */
export const MESSAGE_FAILURE_REASONS = ['expired', 'refused'] as const;
export type MessageFailureReason = (typeof MESSAGE_FAILURE_REASONS)[number];

/**
 * One-time-code messages a provider did not take within their request (src/messages): the worker's
 * message relay retries them until the code expires. The message (recipient, text, code) is stored
 * encrypted with the personal-data cipher and dropped once sent (the row goes) or given up (the
 * column is emptied). An insert NOTIFYs `message_outbox` (a trigger).
 */
export const MessageOutboxEntry = defineEntity({
  name: 'MessageOutboxEntry',
  tableName: 'message_outbox',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    channel: p.enum(['sms', 'email'] as const),
    /** What it is for, e.g. `otp.login` (no personal data). */
    purpose: p.string().length(60),
    /** The outgoing message as JSON, encrypted (`v1.iv.tag.ciphertext`); null once given up. */
    payloadEncrypted: p.text().nullable(),
    /** The recipient's keyed hash, as the person's identifiers are hashed: an erasure deletes their pending messages by it. */
    recipientHash: p.string().length(64).nullable(),
    status: p.enum(MESSAGE_OUTBOX_STATUSES).default('pending'),
    failureReason: p.enum(MESSAGE_FAILURE_REASONS).nullable(),
    /** Delivery attempts so far (the request's, then the relay's). */
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime(),
    /** The last failed attempt's error (class and message: channel and failure, never the recipient). */
    lastError: p.string().length(500).nullable(),
    /** The code's expiry: the relay gives up then. */
    expiresAt: p.datetime(),
    createdAt: p.datetime().defaultRaw('now()'),
    failedAt: p.datetime().nullable(),
  },
  indexes: [
    // The relay's claim: pending messages by due time.
    {
      name: 'message_outbox_pending_index',
      expression: `create index "message_outbox_pending_index" on "message_outbox" ("next_attempt_at") where "status" = 'pending'`,
    },
  ],
});
