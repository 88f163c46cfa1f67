import { defineEntity, p } from '@mikro-orm/core';

/**
 * A workflow run the API owes (src/workflow-starts): written in the transaction that writes the
 * business rows, so a run is never lost between the commit and its start. The API tries the start at
 * once; the worker's start relay starts whatever is still pending as soon as Temporal answers. One
 * row per workflow id: starts are idempotent by that id. Holds ids and options, never personal data.
 * An insert NOTIFYs `workflow_starts` (a trigger).
 */
export const WorkflowStart = defineEntity({
  name: 'WorkflowStart',
  tableName: 'workflow_starts',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    /** What to start: `activation`, `company`, `quote` (src/workflow-starts/kinds.ts; new kinds add a starter there). */
    kind: p.string().length(40),
    /** The run's workflow id (`activation:<id>`, …): one pending start per run. */
    workflowId: p.string().length(255),
    /** The start's arguments (ids and options) as the kind's starter takes them. */
    args: p.json<Record<string, unknown>>(),
    /** The business rows' commit (database time): a run started late keeps deadlines counted from here. */
    createdAt: p.datetime().defaultRaw('now()'),
    /** Failed attempts so far (the API's and the relay's), plus the one that started it. */
    attempts: p.integer().default(0),
    /** Not claimed by the relay before this: the API's own attempt first, then the backoff after a failure. */
    nextAttemptAt: p.datetime(),
    /** The last failed attempt's error (class and message). */
    lastError: p.string().length(500).nullable(),
    /** When Temporal took the start (or answered that the run exists); null while it is pending. */
    startedAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'workflow_starts_workflow_id_unique', properties: ['workflowId'] }],
  indexes: [
    // The relay's claim: pending starts by due time.
    {
      name: 'workflow_starts_pending_index',
      expression: `create index "workflow_starts_pending_index" on "workflow_starts" ("next_attempt_at") where "started_at" is null`,
    },
  ],
});
