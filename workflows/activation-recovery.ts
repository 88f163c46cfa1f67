import { log, proxyActivities } from '@temporalio/workflow';
import type { RecoveryActivities } from '../activities/recovery';
import type { ActivationRecoveryInput, ActivationRecoveryResult } from './activation-recovery-contract';

// A failing batch (database or Temporal away) is retried a few times; then the run fails, visibly in the UI,
// and the next scheduled run starts over (every step is idempotent: starts are by workflow id).
const { recoverStrandedActivations } = proxyActivities<RecoveryActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/**
 * Started by the `activation-recovery` Temporal Schedule: finds `pending` activations whose workflow never
 * started (the API died between the commit and the start) and starts it, or lets it cancel at once when its
 * cancel deadline has passed (activities/recovery.ts).
 */
export async function activationRecoveryWorkflow(input: ActivationRecoveryInput): Promise<ActivationRecoveryResult> {
  const result = await recoverStrandedActivations(input);
  if (result.started.length + result.cancelled.length > 0) log.warn('stranded activations recovered', { ...result });
  return result;
}
