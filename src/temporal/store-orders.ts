import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { StoreOrderRuns } from '../store/runs';
import { storeOrderWorkflow } from '../../workflows/store-order';
import { requeueSignal, storeOrderWorkflowId, type StoreOrderWorkflowInput } from '../../workflows/store-order-contract';
import { START_DEADLINE_MS } from './connection';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export type StoreOrderRunsConfig = Pick<
  Config,
  'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'STORE_ORDER_PAYMENT_TTL' | 'STORE_DELIVERY_DEADLINE' | 'STORE_ORDER_POLL_EVERY'
>;

/**
 * The StoreOrderRuns port on a Temporal client. The order's first run is started with REJECT_DUPLICATE
 * (one run per order; a start that finds it counts as made); an admin requeue is a signal-with-start
 * allowing a new run once the last one finished.
 */
export function createStoreOrderRuns(
  client: Client,
  config: StoreOrderRunsConfig,
  opts: { startDeadlineMs?: number } = {},
): StoreOrderRuns {
  const deadline = () => Date.now() + (opts.startDeadlineMs ?? START_DEADLINE_MS);
  const input = (orderId: string, extra: { paymentTtlMs?: number; requeue?: boolean } = {}): StoreOrderWorkflowInput => ({
    orderId,
    requeue: extra.requeue,
    searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES,
    timers: {
      // At least 1 ms: a zero timeout would mean "no timeout" to the workflow's condition().
      paymentTtlMs: Math.max(1, extra.paymentTtlMs ?? config.STORE_ORDER_PAYMENT_TTL),
      deliveryDeadlineMs: config.STORE_DELIVERY_DEADLINE,
      pollIntervalMs: config.STORE_ORDER_POLL_EVERY,
    },
  });
  const attributes = (orderId: string, userId?: string) =>
    config.TEMPORAL_SEARCH_ATTRIBUTES
      ? new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.OrderId, value: orderId },
          ...(userId ? [{ key: SEARCH_ATTRIBUTES.UserId, value: userId }] : []),
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
            args: [input(orderId, { paymentTtlMs: config.STORE_ORDER_PAYMENT_TTL - (late?.ageMs ?? 0) })],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            typedSearchAttributes: attributes(orderId, userId),
          }),
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },

    async requeue(orderId) {
      await client.withDeadline(deadline(), () =>
        client.workflow.signalWithStart(storeOrderWorkflow, {
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowId: storeOrderWorkflowId(orderId),
          args: [input(orderId, { requeue: true })],
          signal: requeueSignal,
          signalArgs: [],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: attributes(orderId),
        }),
      );
    },
  };
}
