import { log, proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention';
import type { RetentionInput, RetentionResult } from './contracts/retention-contract';

// A failing batch (database away) is retried a few times; after that the run fails, visibly in the UI,
// and the next scheduled run starts over (an erased account is not due any more).
const { eraseDue } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * The retention erasure, started daily by the `retention-erasure` Temporal Schedule
 * (src/compliance/schedules.ts): erases the personal data of every account whose retainUntil is before
 * the run's time, in bounded batches. The cutoff is the workflow's clock, fixed at the start, so a
 * replay and every batch of the run agree on what was due.
 */
export async function retentionWorkflow(input: RetentionInput): Promise<RetentionResult> {
  const asOf = new Date(Date.now()).toISOString();
  let erased = 0;
  for (let batch = 1; batch <= input.maxBatches; batch++) {
    const done = await eraseDue({ asOf, limit: input.batchSize });
    erased += done.erased;
    if (!done.more) {
      log.info('retention erasure done', { asOf, erased });
      return { asOf, erased, unfinished: false };
    }
  }
  log.warn('retention erasure left accounts for the next run', { asOf, erased });
  return { asOf, erased, unfinished: true };
}
