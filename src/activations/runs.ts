import type { SimType } from '../entities';

/** What a run starts from (the activation's pending start, src/workflow-starts). */
export interface StartActivation {
  activationId: string;
  userId: string;
  orderId: string;
  simType: SimType;
  paid?: boolean;
  /** A company seat's company: its run is then found by CompanyId next to the company's and quotes' runs. */
  companyId?: string | null;
  /** The payment that paid the order before the run started (a seat's corporate payment): found by PaymentId, as a paid consumer run is. */
  paymentId?: string | null;
  /** What is left of the cancel deadline (a run started late keeps the deadline of its creation); default: the whole of it. */
  cancelAfterMs?: number;
}

/** What the pending start stores: the create's ids and options (the deadline is computed when it starts). */
export type ActivationStartArgs = Omit<StartActivation, 'cancelAfterMs'>;

/**
 * What the API asks of an activation's workflow (`activation:<id>`) directly: its start. What it tells
 * the run (a verification started, the order paid) goes through pending signals (src/workflow-signals).
 * src/activations/runs-temporal.ts implements it on a Temporal client, tests may pass a fake.
 */
export interface ActivationRuns {
  start(activation: StartActivation): Promise<void>;
}
