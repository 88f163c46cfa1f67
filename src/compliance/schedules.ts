// The retention schedule: daily by default (RETENTION_ERASE_EVERY), it erases the personal data of
// the accounts whose retainUntil passed (esim-store spec "Account deletion and compliance").
import type { Config } from '../config';
import { type RetentionInput, RETENTION_WORKFLOW_TYPE, type RetentionWorkflow } from '../../workflows/contracts/retention-contract';
import { scheduleSpec, type ScheduleSpec } from '../temporal/schedule-spec';

export const RETENTION_SCHEDULE_ID = 'retention-erasure';
/** Accounts per batch and batches per run: 50,000 accounts a run at most, the rest the next day. */
export const RETENTION_BATCH = { batchSize: 100, maxBatches: 500 } satisfies RetentionInput;

export function retentionScheduleSpecs(
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'RETENTION_ERASE_EVERY' | 'RETENTION_DAYS'>,
): ScheduleSpec[] {
  return [
    scheduleSpec<RetentionWorkflow>({
      scheduleId: RETENTION_SCHEDULE_ID,
      workflowType: RETENTION_WORKFLOW_TYPE,
      args: [RETENTION_BATCH],
      every: config.RETENTION_ERASE_EVERY,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      description:
        `Erases the personal data (name, phone, e-mail, id numbers and their hashes) of accounts deleted more than ${config.RETENTION_DAYS} ` +
        'days ago (past retainUntil); orders, payments and receipts stay without it.',
    }),
  ];
}
