// The housekeeping workflow's contract: what it can purge and its input, imported by the
// schedules (src/housekeeping/schedules.ts), the workflow and the activities.

/**
 * What housekeeping purges, one kind of row each. What "past its life" means for each is in
 * src/housekeeping/repository.ts. The device blocklist is not here: a device block has no end.
 */
export const PURGE_TARGETS = [
  'otp_challenges',
  'otp_requests',
  'token_blocklist',
  'sessions',
  'rate_limits',
  'webhook_receipts',
  'webhook_inbox',
] as const;
export type PurgeTarget = (typeof PURGE_TARGETS)[number];

/** One purge: rows of `target` that ended more than `keepMs` ago. */
export interface PurgeStep {
  target: PurgeTarget;
  keepMs: number;
}

export interface HousekeepingInput {
  /** Done in order, each until nothing past its life is left (or `maxBatches` ran). */
  purges: PurgeStep[];
  /** Rows deleted per statement: one short transaction each, so a backlog never holds a long lock. */
  batchSize: number;
  /** Batches per target and run; the rest of a huge backlog waits for the next run (keeps the history short). */
  maxBatches: number;
}

export interface HousekeepingResult {
  /** Rows deleted, per target. */
  purged: Partial<Record<PurgeTarget, number>>;
  /** Targets that still had rows past their life when `maxBatches` ran out. */
  unfinished: PurgeTarget[];
}

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const HOUSEKEEPING_WORKFLOW_TYPE = 'housekeepingWorkflow';
export type HousekeepingWorkflow = (input: HousekeepingInput) => Promise<HousekeepingResult>;
