// Signals delivered on a Temporal client: the API's (its short attempt) and the relay's (its own client).
import { TypedSearchAttributes } from '@temporalio/common';
import { WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { CANCEL_RUN, type PendingSignal, type RunStart, type SignalSender } from './kinds';

/** How long one delivery may wait for Temporal: a request's attempt must not hold its answer long. */
export const SIGNAL_DEADLINE_MS = 2_000;

/** "Not found" for a run that was started means it closed: nothing is left to tell it (or to cancel). */
export function temporalSignalSender(client: Client, deadlineMs = SIGNAL_DEADLINE_MS): SignalSender {
  return async (signal) => {
    try {
      await client.withDeadline(Date.now() + deadlineMs, () => deliver(client, signal));
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'closed';
      throw err;
    }
  };
}

function deliver(client: Client, { workflowId, signal, args, start }: PendingSignal): Promise<unknown> {
  if (signal === CANCEL_RUN) return client.workflow.getHandle(workflowId).cancel();
  if (!start) return client.workflow.getHandle(workflowId).signal(signal, args);
  // A run that ended is started again to take the signal (a requeue of a finished store order).
  return client.workflow.signalWithStart(start.workflowType, {
    workflowId,
    taskQueue: start.taskQueue,
    args: [start.input],
    signal,
    signalArgs: [args],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    typedSearchAttributes: start.searchAttributes && searchAttributes(start.searchAttributes),
  });
}

function searchAttributes(values: NonNullable<RunStart['searchAttributes']>): TypedSearchAttributes {
  return new TypedSearchAttributes(
    Object.entries(values).map(([name, value]) => ({ key: SEARCH_ATTRIBUTES[name as keyof typeof SEARCH_ATTRIBUTES], value })),
  );
}
