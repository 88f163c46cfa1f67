// The webhook inbox: verified processor events that can still change a payment, kept in
// Postgres until the relay (./relay.ts) has handed each to the payment's settlement workflow.
// The route writes one row per event id and acknowledges; nothing it was sent waits on Temporal.
// Its statements are in ./repository.ts.
import type { PaymentStatus } from '../entities/payment';
import type { ProcessorEvent } from '../payments/runs';

// The webhook inbox is the area's face (issue 35): a development stand-in elsewhere (the mock wallet's
// page, src/payments/mock-wallet.ts) appends its event here, as the route does.
export { appendToInbox } from './repository';

/** NOTIFY channel of new inbox rows (a trigger on webhook_inbox, see the migration): the relay LISTENs. */
export const INBOX_CHANNEL = 'webhook_inbox';

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
