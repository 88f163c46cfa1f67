import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { storeOrderInput, type StoreOrderRuns, type StoreOrderRunsConfig } from '../store/runs';
import { storeOrderWorkflow } from '../../workflows/store-order';
import { storeOrderWorkflowId } from '../../workflows/store-order-contract';
import { START_DEADLINE_MS } from './connection';
import { SEARCH_ATTRIBUTES } from './search-attributes';

/**
 * The StoreOrderRuns port on a Temporal client. The order's first run is started with REJECT_DUPLICATE
 * (one run per order; a start that finds it counts as made). An admin requeue is a pending signal with
 * start (src/workflow-signals: a new run once the last one finished).
 */
export function createStoreOrderRuns(
  client: Client,
  config: StoreOrderRunsConfig,
  opts: { startDeadlineMs?: number } = {},
): StoreOrderRuns {
  const deadline = () => Date.now() + (opts.startDeadlineMs ?? START_DEADLINE_MS);
  const attributes = (orderId: string, userId: string) =>
    config.TEMPORAL_SEARCH_ATTRIBUTES
      ? new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.OrderId, value: orderId },
          { key: SEARCH_ATTRIBUTES.UserId, value: userId },
        ])
      : undefined;

  return {
    async start({ orderId, userId }, late) {
      try {
        await client.withDeadline(deadline(), () =>
          client.workflow.start(storeOrderWorkflow, {
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowId: storeOrderWorkflowId(orderId),
            // A run started late by the relay keeps the payment deadline of the order's creation.
            args: [storeOrderInput(config, orderId, { paymentTtlMs: config.STORE_ORDER_PAYMENT_TTL - (late?.ageMs ?? 0) })],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            typedSearchAttributes: attributes(orderId, userId),
          }),
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
  };
}
