/**
 * The API's side of the payment settlement workflow (`payment:<paymentId>`).
 * Implemented by createPaymentWorkflows (settlement issue); payment routes and
 * webhooks depend only on this interface, tests hand in fakes.
 */
export interface ProcessorEvent {
  /** The processor's event id: duplicates are recognized by it. */
  eventId: string;
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled';
  /** For payment_failed: the last payment error message. */
  failureMessage?: string;
}

export interface PaymentWorkflows {
  /** Starts settlement for a payment that waits on the processor (idempotent). */
  startSettlement(paymentId: string): Promise<void>;
  /** Delivers a verified processor event (signal-with-start: order of arrival does not matter). */
  deliverEvent(paymentId: string, event: ProcessorEvent): Promise<void>;
}
