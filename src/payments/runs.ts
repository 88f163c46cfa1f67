import type { ProcessorEvent } from '../../workflows/contracts/settlement-contract';

/** The payload of deliverEvent; defined with the settlement workflow's signal. */
export type { ProcessorEvent };

/**
 * What the API asks of a payment's settlement workflow (`payment:<paymentId>`). The payment service
 * and the webhook relay depend on this port; src/payments/runs-temporal.ts implements it on a Temporal
 * client, tests may pass a fake.
 */
export interface PaymentRuns {
  /** Starts settlement for a payment that waits on the processor (idempotent). */
  startSettlement(paymentId: string): Promise<void>;
  /**
   * Delivers a verified processor event (signal-with-start: the run may not exist yet). Called by
   * the webhook relay (src/webhooks/relay.ts) for inbox rows, never by a request handler.
   */
  deliverEvent(paymentId: string, event: ProcessorEvent): Promise<void>;
}
