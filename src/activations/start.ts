// How an activation's run is started, at once by the create or late by the start relay
// (src/workflow-starts). A late run keeps the cancel deadline of its creation (one past it cancels at
// once, with its order) and starts knowing an order that was paid while it had no run.
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import type { ActivationWorkflows, StartActivation } from '../temporal/activations';
import type { LateStart } from '../workflow-starts/kinds';
import { findPaidOrder } from './repository';

/** What the pending start stores: the create's ids and options (the deadline is computed when it starts). */
export type ActivationStartArgs = Omit<StartActivation, 'cancelAfterMs'>;

export interface ActivationStarterDeps {
  db: Sql;
  workflows: Pick<ActivationWorkflows, 'start'>;
  config: Pick<Config, 'ACTIVATION_CANCEL_AFTER_SECONDS'>;
}

export function activationStarter(deps: ActivationStarterDeps) {
  return async (args: ActivationStartArgs, late?: LateStart): Promise<void> => {
    if (!late) return deps.workflows.start(args);
    // What is left of the deadline; the workflow makes it at least 1 ms and then cancels the activation with its order.
    const cancelAfterMs = deps.config.ACTIVATION_CANCEL_AFTER_SECONDS * 1000 - late.ageMs;
    // A paid order and its completed payment: the settlement could not signal a run that did not exist.
    const paid = args.paid ? undefined : await findPaidOrder(deps.db, args.orderId);
    await deps.workflows.start({ ...args, ...(paid ? { paid: true, paymentId: paid.paymentId } : {}), cancelAfterMs });
  };
}
