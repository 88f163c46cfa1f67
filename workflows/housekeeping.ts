import { log, proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';
import type { HousekeepingInput, HousekeepingResult, PurgeStep } from './contracts/housekeeping-contract';

// A failing batch (database away) is retried a few times; after that the run fails, visibly in the
// UI, and the next scheduled run starts over (deleting is idempotent).
const { purgeExpired } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** Deletes batches of one target until one comes back short; false when `maxBatches` ran out first. */
async function purgeAll(step: PurgeStep, input: HousekeepingInput, purged: HousekeepingResult['purged']): Promise<boolean> {
  purged[step.target] = 0;
  for (let batch = 1; ; batch++) {
    const { deleted } = await purgeExpired({ target: step.target, keepMs: step.keepMs, batchSize: input.batchSize });
    purged[step.target] = (purged[step.target] ?? 0) + deleted;
    if (deleted < input.batchSize) return true;
    if (batch >= input.maxBatches) return false;
  }
}

/**
 * Housekeeping, started by the `housekeeping-*` Temporal Schedules (src/housekeeping/schedules.ts):
 * purges what is past its life, target by target, in bounded batches.
 */
export async function housekeepingWorkflow(input: HousekeepingInput): Promise<HousekeepingResult> {
  const result: HousekeepingResult = { purged: {}, unfinished: [] };
  for (const step of input.purges) {
    if (!(await purgeAll(step, input, result.purged))) result.unfinished.push(step.target);
  }
  if (result.unfinished.length > 0) log.warn('housekeeping left rows for the next run', { ...result });
  else log.info('housekeeping done', { ...result });
  return result;
}
