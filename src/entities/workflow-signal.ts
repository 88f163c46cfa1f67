import { defineEntity, p } from '@mikro-orm/core';

/**
 * A signal the API owes a run (src/workflow-signals): written in the transaction that decided it, so a
 * run learns of it even when Temporal is away at the commit. The API tries it at once; the worker's
 * signal relay delivers what is left as soon as Temporal answers, in order per run, and only once the
 * run's own pending start (if any) was made. Holds ids and options, never personal data. An insert
 * NOTIFYs `workflow_signals` (a trigger).
 */
export const WorkflowSignal = defineEntity({
  name: 'WorkflowSignal',
  tableName: 'workflow_signals',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    /** The run it is for (`activation:<id>`, …). */
    workflowId: p.string().length(255),
    /** The signal's name as the workflow's contract defines it (`identityStarted`, `orderPaid`, …), or `@cancel`: a cancellation request. */
    signal: p.string().length(80),
    /** Its one argument (ids and options). */
    args: p.json<Record<string, unknown>>(),
    /** Signal-with-start: the workflow type, task queue, input and search attributes of the run to start when none runs (a store order's requeue). */
    start: p.json<Record<string, unknown>>().nullable(),
    /** The decision's commit (database time). */
    createdAt: p.datetime().defaultRaw('now()'),
    /** Failed attempts so far (the API's and the relay's). */
    attempts: p.integer().default(0),
    /** Not claimed by the relay before this: the API's own attempt first, then the backoff after a failure. */
    nextAttemptAt: p.datetime(),
    /** The last failed attempt's error (class and message). */
    lastError: p.string().length(500).nullable(),
    /** When Temporal took it, or found the run closed; null while it is pending. */
    deliveredAt: p.datetime().nullable(),
    /** `signalled`, or `closed` when the run had already ended (nothing left to tell). */
    outcome: p.string().length(20).nullable(),
  },
  indexes: [
    // The relay's claim: pending signals by due time; the order per run.
    {
      name: 'workflow_signals_pending_index',
      expression: `create index "workflow_signals_pending_index" on "workflow_signals" ("workflow_id", "id") where "delivered_at" is null`,
    },
  ],
});
