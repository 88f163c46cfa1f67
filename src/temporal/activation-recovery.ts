// The schedule of the start-gap recovery: every ACTIVATION_RECOVERY_EVERY_SECONDS, activationRecoveryWorkflow
// starts the workflow of each `pending` activation older than ACTIVATION_RECOVERY_GRACE_SECONDS that has none.
import type { Config } from '../config';
import { activationRecoveryWorkflow } from '../../workflows/activation-recovery';
import { ACTIVATION_RECOVERY_SCHEDULE_ID, type ActivationRecoveryInput } from '../../workflows/activation-recovery-contract';
import type { ActivationWorkflowConfig } from './activations';
import { scheduleSpec, type ScheduleSpec } from './schedules';

/** Rows looked at per run: a backlog (e.g. the first run after the deploy) is worked off over a few runs. */
export const RECOVERY_BATCH = 100;
/** A run may take this long before it is timed out (the next one is skipped while it runs). */
const RUN_TIMEOUT_MS = 120_000;

export type ActivationRecoveryConfig = ActivationWorkflowConfig &
  Pick<Config, 'ACTIVATION_RECOVERY_EVERY_SECONDS' | 'ACTIVATION_RECOVERY_GRACE_SECONDS'>;

export function activationRecoveryScheduleSpec(config: ActivationRecoveryConfig): ScheduleSpec {
  const input: ActivationRecoveryInput = {
    graceMs: config.ACTIVATION_RECOVERY_GRACE_SECONDS * 1000,
    limit: RECOVERY_BATCH,
    activation: {
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      ACTIVATION_CANCEL_AFTER_SECONDS: config.ACTIVATION_CANCEL_AFTER_SECONDS,
      IDENTITY_POLL_INTERVAL_SECONDS: config.IDENTITY_POLL_INTERVAL_SECONDS,
      IDENTITY_REQUEST_TTL_SECONDS: config.IDENTITY_REQUEST_TTL_SECONDS,
      ACTIVATION_PAID_CHECK_SECONDS: config.ACTIVATION_PAID_CHECK_SECONDS,
      TEMPORAL_SEARCH_ATTRIBUTES: config.TEMPORAL_SEARCH_ATTRIBUTES,
    },
  };
  return scheduleSpec({
    scheduleId: ACTIVATION_RECOVERY_SCHEDULE_ID,
    workflow: activationRecoveryWorkflow,
    args: [input],
    every: config.ACTIVATION_RECOVERY_EVERY_SECONDS * 1000,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    description:
      `Starts the workflow of pending activations left without one (the API died between commit and start), ` +
      `older than ${config.ACTIVATION_RECOVERY_GRACE_SECONDS} s; one past its cancel deadline is cancelled with its order.`,
    runTimeout: Math.max(RUN_TIMEOUT_MS, config.ACTIVATION_RECOVERY_EVERY_SECONDS * 1000),
  });
}
