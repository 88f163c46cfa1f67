// Signals delivered on a Temporal client: the API's (its short attempt) and the relay's (its own client).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { SignalSender } from './kinds';

/** How long one delivery may wait for Temporal: a request's attempt must not hold its answer long. */
export const SIGNAL_DEADLINE_MS = 2_000;

/** "Not found" for a run that was started means it closed: nothing is left to tell it. */
export function temporalSignalSender(client: Client, deadlineMs = SIGNAL_DEADLINE_MS): SignalSender {
  return async ({ workflowId, signal, args }) => {
    try {
      await client.withDeadline(Date.now() + deadlineMs, () => client.workflow.getHandle(workflowId).signal(signal, args));
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'closed';
      throw err;
    }
  };
}
