// The webhook inbox: verified processor events that can still change a payment, kept in
// Postgres until the relay (./relay.ts) has handed each to the payment's settlement workflow.
// The route writes one row per event id and acknowledges; nothing it was sent waits on Temporal.
import type { Pool } from 'pg';
import type { PaymentProviderName, PaymentStatus } from '../entities/payment';
import type { ProcessorEvent } from '../temporal/payments';

/** NOTIFY channel of new inbox rows (a trigger on webhook_inbox, see the migration): the relay LISTENs. */
export const INBOX_CHANNEL = 'webhook_inbox';

export interface InboxEntry {
  /** Who sent it: the card processor, or the development mock wallet page. */
  provider: PaymentProviderName;
  paymentId: string;
  event: ProcessorEvent;
  receivedAt: Date;
}

type Queryable = Pick<Pool, 'query'>;

/**
 * Payment statuses an event can still change, the one rule for the route (what it keeps) and the
 * relay (what it still hands over): a success completes a failed payment too, never a completed or
 * refunded one; a failure or a cancellation only ends an open one (a completed one is never downgraded).
 */
export const DELIVERABLE: Record<ProcessorEvent['type'], readonly PaymentStatus[]> = {
  'payment_intent.succeeded': ['pending', 'processing', 'failed'],
  'payment_intent.payment_failed': ['pending', 'processing'],
  'payment_intent.canceled': ['pending', 'processing'],
};

// Due at once by the database's clock (the relay compares with now(), wherever it runs).
const APPEND = `insert into webhook_inbox (provider, event_id, payment_id, type, failure_message, received_at, next_attempt_at)
  values ($1, $2, $3, $4, $5, $6, now()) on conflict (provider, event_id) do nothing returning id`;

/**
 * Keeps one event: ONE statement, de-duplicated by the provider's event id (a redelivery,
 * or two deliveries racing, leave one row). Returns false for a duplicate. The row is due at
 * once; its insert trigger wakes the relay.
 */
export async function appendToInbox(db: Queryable, entry: InboxEntry): Promise<boolean> {
  const { event } = entry;
  const { rowCount } = await db.query({
    name: 'webhook-inbox-append',
    text: APPEND,
    values: [entry.provider, event.eventId, entry.paymentId, event.type, event.failureMessage ?? null, entry.receivedAt],
  });
  return (rowCount ?? 0) > 0;
}
