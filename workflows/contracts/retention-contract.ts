// The retention workflow's contract: its input and result, imported by the schedule
// (src/compliance/schedules.ts), the workflow and the activities.

export interface RetentionInput {
  /** Accounts erased per activity call: one short transaction each, the call bounded. */
  batchSize: number;
  /** Batches per run; the rest of a huge backlog waits for the next run (keeps the history short). */
  maxBatches: number;
}

export interface RetentionResult {
  /** The run's time: accounts whose retainUntil was before it were due. */
  asOf: string;
  erased: number;
  /** True when maxBatches ran out with accounts still due. */
  unfinished: boolean;
}

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';
export type RetentionWorkflow = (input: RetentionInput) => Promise<RetentionResult>;
