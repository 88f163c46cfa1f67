import type { Db } from '../src/db/sql';
import { purgeBatch } from '../src/housekeeping/repository';
import type { PurgeTarget } from '../workflows/contracts/housekeeping-contract';

export interface HousekeepingActivityDeps {
  db: Db;
  clock?: () => Date;
}

/**
 * Housekeeping: each call deletes at most `batchSize` rows of one target in one statement (its
 * own short transaction). Rows another transaction holds are skipped, not waited for (the next
 * batch or run takes them). Idempotent: what is gone stays gone, and a retry deletes what is left.
 * What "past its life" means per target is src/housekeeping/repository.ts's.
 */
export function createHousekeepingActivities(deps: HousekeepingActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    async purgeExpired(input: { target: PurgeTarget; keepMs: number; batchSize: number }): Promise<{ deleted: number }> {
      const cutoff = new Date(clock().getTime() - input.keepMs);
      return { deleted: await purgeBatch(deps.db, input.target, cutoff, input.batchSize) };
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
