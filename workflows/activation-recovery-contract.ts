// What the recovery of stranded activations shares with its schedule and its activity. Pure: the worker's
// schedule list (src/temporal/activation-recovery.ts), the activity and tests import it.
// Type-only (erased at build): how the API starts an activation workflow, reused by the recovery.
import type { ActivationWorkflowConfig } from '../src/temporal/activations';

/** The Temporal Schedule that runs the recovery (Temporal UI, Schedules); its runs are `activation-recovery-<time>`. */
export const ACTIVATION_RECOVERY_SCHEDULE_ID = 'activation-recovery';

export interface ActivationRecoveryInput {
  /**
   * A `pending` row whose workflow nobody saw start is stranded once it is older than this: longer than
   * the API's start deadline, so a create still starting its workflow is left alone.
   */
  graceMs: number;
  /** Rows looked at per run, oldest first; the rest wait for the next run. */
  limit: number;
  /** The configuration the API starts activation workflows with (the worker's, handed over by the schedule). */
  activation: ActivationWorkflowConfig;
}

export interface ActivationRecoveryResult {
  /** Activations whose workflow this run started, with what was left of their cancel deadline. */
  started: string[];
  /** Activations past their cancel deadline: started with a 1 ms cancel timer, so the workflow cancels them with their order. */
  cancelled: string[];
  /** Rows whose workflow was there after all (the API died after the start, before marking it): only marked. */
  found: string[];
}
