// How an activation's run is started, at once by the create or late by the start relay
// (src/workflow-starts). A late run keeps the cancel deadline of its creation (one past it cancels at
// once, with its order) and starts knowing an order that was paid while it had no run.
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import type { ActivationRuns, ActivationStartArgs } from './runs';
import type { LateStart } from '../workflow-starts/kinds';
import { findPaidOrder } from './repository';

export interface ActivationStarterDeps {
  db: Sql;
  runs: Pick<ActivationRuns, 'start'>;
  config: Pick<Config, 'ACTIVATION_CANCEL_AFTER_SECONDS'>;
}

export function activationStarter(deps: ActivationStarterDeps) {
  return async (args: ActivationStartArgs, late?: LateStart): Promise<void> => {
    if (!late) return deps.runs.start(args);
    // What is left of the deadline; the workflow makes it at least 1 ms and then cancels the activation with its order.
    const cancelAfterMs = deps.config.ACTIVATION_CANCEL_AFTER_SECONDS * 1000 - late.ageMs;
    // A paid order and its completed payment: the settlement could not signal a run that did not exist.
    const paid = args.paid ? undefined : await findPaidOrder(deps.db, args.orderId);
    await deps.runs.start({ ...args, ...(paid ? { paid: true, paymentId: paid.paymentId } : {}), cancelAfterMs });
  };
}
