// The FX fetch's contract: its result, imported by the schedule (src/store/schedules.ts), the workflow and the tests.

/** `fetched`: a snapshot per currency was appended. `failed`: the source gave nothing usable; the last rates stay (logged). */
export type FxFetchResult =
  { status: 'fetched'; source: string; currencies: string[]; fetchedAt: string } | { status: 'failed'; reason: string };

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const FX_FETCH_WORKFLOW_TYPE = 'fxFetchWorkflow';
export type FxFetchWorkflow = () => Promise<FxFetchResult>;
