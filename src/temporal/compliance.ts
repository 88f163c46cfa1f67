import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ComplianceRuns } from '../compliance/runs';
import { START_DEADLINE_MS } from './connection';

/**
 * The ComplianceRuns port on a Temporal client: a cancel request per run, within the short start deadline. An
 * activation's run records `cancelled` and cancels its order's open processor intents as it closes
 * (workflows/activation.ts, lastResort); a store order's run closes cancelled. A run already closed
 * counts as done; one Temporal did not take is left to its own deadline (src/compliance/runs.ts).
 */
export function createComplianceRuns(client: Client, opts: { deadlineMs?: number } = {}): ComplianceRuns {
  return {
    async cancel(workflowIds) {
      const deadline = Date.now() + (opts.deadlineMs ?? START_DEADLINE_MS);
      const taken = await Promise.all(
        workflowIds.map(async (id) => {
          try {
            await client.withDeadline(deadline, () => client.workflow.getHandle(id).cancel());
            return id;
          } catch (err) {
            return err instanceof WorkflowNotFoundError ? id : null;
          }
        }),
      );
      return taken.filter((id): id is string => id !== null);
    },
  };
}
