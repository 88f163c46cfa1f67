// The housekeeping schedules: one per kind of row past its life, each starting housekeepingWorkflow
// with its purges. Intervals and retention come from configuration (HOUSEKEEPING_*).
import type { Config } from '../config';
import {
  type HousekeepingInput,
  type PurgeStep,
  HOUSEKEEPING_WORKFLOW_TYPE,
  type HousekeepingWorkflow,
} from '../../workflows/contracts/housekeeping-contract';
import { scheduleSpec, type ScheduleSpec } from '../temporal/schedule-spec';

/** Batches per target and run: a huge backlog is worked off over several runs, each with a short history. */
export const MAX_BATCHES_PER_RUN = 200;

export const HOUSEKEEPING_SCHEDULE_IDS = {
  otp: 'housekeeping-otp',
  sessions: 'housekeeping-sessions',
  rateLimits: 'housekeeping-rate-limits',
  webhookReceipts: 'housekeeping-webhook-receipts',
} as const;

export type HousekeepingConfig = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'OTP_WINDOW_SECONDS'
  | 'HOUSEKEEPING_OTP_EVERY_SECONDS'
  | 'HOUSEKEEPING_SESSIONS_EVERY_SECONDS'
  | 'HOUSEKEEPING_RATE_LIMITS_EVERY_SECONDS'
  | 'HOUSEKEEPING_WEBHOOK_RECEIPTS_EVERY_SECONDS'
  | 'HOUSEKEEPING_OTP_KEEP_SECONDS'
  | 'HOUSEKEEPING_CLOCK_SKEW_SECONDS'
  | 'HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS'
  | 'HOUSEKEEPING_BATCH_SIZE'
>;

const seconds = (n: number) => n * 1000;

export function housekeepingScheduleSpecs(config: HousekeepingConfig): ScheduleSpec[] {
  const skew = seconds(config.HOUSEKEEPING_CLOCK_SKEW_SECONDS);
  const spec = (scheduleId: string, everySeconds: number, purges: PurgeStep[], description: string) => {
    const input: HousekeepingInput = { purges, batchSize: config.HOUSEKEEPING_BATCH_SIZE, maxBatches: MAX_BATCHES_PER_RUN };
    return scheduleSpec<HousekeepingWorkflow>({
      scheduleId,
      workflowType: HOUSEKEEPING_WORKFLOW_TYPE,
      args: [input],
      every: seconds(everySeconds),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      description,
    });
  };
  return [
    spec(
      HOUSEKEEPING_SCHEDULE_IDS.otp,
      config.HOUSEKEEPING_OTP_EVERY_SECONDS,
      [
        { target: 'otp_challenges', keepMs: seconds(config.HOUSEKEEPING_OTP_KEEP_SECONDS) },
        { target: 'otp_requests', keepMs: seconds(config.OTP_WINDOW_SECONDS) },
      ],
      `Purges one-time codes expired more than ${config.HOUSEKEEPING_OTP_KEEP_SECONDS} s ago, and OTP request counts older than their window.`,
    ),
    spec(
      HOUSEKEEPING_SCHEDULE_IDS.sessions,
      config.HOUSEKEEPING_SESSIONS_EVERY_SECONDS,
      [
        { target: 'token_blocklist', keepMs: skew },
        { target: 'sessions', keepMs: skew },
      ],
      'Purges blocklisted tokens and sessions past their expiry. Revoked sessions stay until they expire; the device blocklist is never purged.',
    ),
    spec(
      HOUSEKEEPING_SCHEDULE_IDS.rateLimits,
      config.HOUSEKEEPING_RATE_LIMITS_EVERY_SECONDS,
      [{ target: 'rate_limits', keepMs: skew }],
      'Purges rate-limit counters whose window ended.',
    ),
    spec(
      HOUSEKEEPING_SCHEDULE_IDS.webhookReceipts,
      config.HOUSEKEEPING_WEBHOOK_RECEIPTS_EVERY_SECONDS,
      [
        { target: 'webhook_receipts', keepMs: seconds(config.HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS * 24 * 3600) },
        { target: 'webhook_inbox', keepMs: seconds(config.HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS * 24 * 3600) },
      ],
      `Purges webhook de-duplication receipts and handed-over inbox events older than ${config.HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS} days. Reconciliation records and pending inbox events are kept.`,
    ),
  ];
}
