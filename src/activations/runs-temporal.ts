import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { ActivationRuns, StartActivation } from './runs';
import { ACTIVATION_WORKFLOW_TYPE, type ActivationWorkflow } from '../../workflows/contracts/activation-contract';
import { activationWorkflowId, type ActivationWorkflowInput } from '../../workflows/contracts/activation-contract';
import { startOnce } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';

export type ActivationRunsConfig = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'ACTIVATION_CANCEL_AFTER_SECONDS'
  | 'IDENTITY_POLL_INTERVAL_SECONDS'
  | 'IDENTITY_REQUEST_TTL_SECONDS'
  | 'ACTIVATION_PAID_CHECK_SECONDS'
  | 'TEMPORAL_SEARCH_ATTRIBUTES'
>;

/**
 * Starts are idempotent by workflow id: a start that finds the run already there (the start relay, or an
 * earlier attempt whose answer was lost, started it) succeeds, since only this activation has that id.
 */
export function createActivationRuns(
  client: Client,
  config: ActivationRunsConfig,
  opts: { startDeadlineMs?: number } = {},
): ActivationRuns {
  const useSearchAttributes = config.TEMPORAL_SEARCH_ATTRIBUTES;
  return {
    start: (a) => startOnce(client, () => startRun(a), opts.startDeadlineMs),
  };

  async function startRun(a: StartActivation): Promise<void> {
    const input: ActivationWorkflowInput = {
      activationId: a.activationId,
      simType: a.simType,
      paid: a.paid,
      searchAttributes: useSearchAttributes,
      timers: {
        // At least 1 ms: a zero timeout would mean "no timeout" to the workflow's condition().
        cancelAfterMs: Math.max(1, a.cancelAfterMs ?? config.ACTIVATION_CANCEL_AFTER_SECONDS * 1000),
        identityPollIntervalMs: config.IDENTITY_POLL_INTERVAL_SECONDS * 1000,
        identityRequestTtlMs: config.IDENTITY_REQUEST_TTL_SECONDS * 1000,
        paidCheckIntervalMs: config.ACTIVATION_PAID_CHECK_SECONDS * 1000,
      },
    };
    await client.workflow.start<ActivationWorkflow>(ACTIVATION_WORKFLOW_TYPE, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: activationWorkflowId(a.activationId),
      args: [input],
      // One run per activation, ever: the server refuses a second start (start() reads that as done).
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      typedSearchAttributes: useSearchAttributes
        ? new TypedSearchAttributes([
            { key: SEARCH_ATTRIBUTES.ActivationId, value: a.activationId },
            { key: SEARCH_ATTRIBUTES.UserId, value: a.userId },
            { key: SEARCH_ATTRIBUTES.OrderId, value: a.orderId },
            { key: SEARCH_ATTRIBUTES.SimType, value: a.simType },
            { key: SEARCH_ATTRIBUTES.ActivationStatus, value: 'pending' },
            ...(a.companyId ? [{ key: SEARCH_ATTRIBUTES.CompanyId, value: a.companyId }] : []),
            ...(a.paymentId ? [{ key: SEARCH_ATTRIBUTES.PaymentId, value: a.paymentId }] : []),
          ])
        : undefined,
    });
  }
}
