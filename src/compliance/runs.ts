/**
 * What an account's deletion asks of Temporal once its transaction committed: cancel the runs of what
 * it ended (pending activations, unpaid store orders), so they close now instead of at their own
 * deadlines. src/temporal/run-cancellation.ts implements it on a Temporal client; tests may pass a fake.
 *
 * Best effort by design: the rows are already final when this is called, and every write a run makes
 * is guarded by the row's status, so a run that is not told ends at its own deadline without changing
 * anything (an activation's deadline finds it cancelled, an unpaid store order's finds it expired).
 */
export interface ComplianceRuns {
  /** Resolves with the workflow ids whose cancellation Temporal took (a run already closed counts as done). */
  cancel(workflowIds: string[]): Promise<string[]>;
}
