import type { Config } from '../config';
import type { RunStart } from '../workflow-signals/kinds';
import {
  STORE_ORDER_WORKFLOW_TYPE,
  type StoreOrderStartArgs,
  type StoreOrderWorkflowInput,
} from '../../workflows/contracts/store-order-contract';

/**
 * What the API asks of the catalog sync (spec "POST /admin/store/catalog/sync"). The admin route depends
 * on this port; src/store/runs-temporal.ts implements it on a Temporal client, tests may pass a fake.
 * Both resolve with the run's workflow id once Temporal took the start or found the run already going
 * (one sync per provider at a time: a second request gets the running one), and reject when Temporal
 * could not be reached in time (the route answers STORE_SYNC_UNAVAILABLE).
 */
export interface StoreSyncRuns {
  /** `store-sync:<providerId>`, with the StoreProvider search attribute (its slug). */
  syncProvider(provider: { id: string; slug: string }): Promise<{ workflowId: string }>;
  /** `store-sync:all`: every active provider, each in its own `store-sync:<providerId>` run. */
  syncAll(): Promise<{ workflowId: string }>;
}

// What a store order's run starts from is the workflow's contract (its pending start stores it: src/workflow-starts).
export type { StoreOrderStartArgs } from '../../workflows/contracts/store-order-contract';

/**
 * What the API asks of a store order's workflow (`store-order:<orderId>`) directly: its start. "Order
 * paid", the provider's verified callbacks and a requeue go through pending signals
 * (src/workflow-signals). src/store/runs-temporal.ts implements it on a Temporal client, tests may
 * pass a fake.
 */
export interface StoreOrderRuns {
  /** Idempotent by workflow id; `late` when the start relay makes it (the payment TTL counts from the order's creation). */
  start(args: StoreOrderStartArgs, late?: { ageMs: number }): Promise<void>;
}

/** What a store order's run input is built from. */
export type StoreOrderRunsConfig = Pick<
  Config,
  'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'STORE_ORDER_PAYMENT_TTL' | 'STORE_DELIVERY_DEADLINE' | 'STORE_ORDER_POLL_EVERY'
>;

/** A run's input: the order and the timers of the configuration. */
export function storeOrderInput(
  config: StoreOrderRunsConfig,
  orderId: string,
  extra: { paymentTtlMs?: number; requeue?: boolean } = {},
): StoreOrderWorkflowInput {
  return {
    orderId,
    requeue: extra.requeue,
    searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES,
    timers: {
      // At least 1 ms: a zero timeout would mean "no timeout" to the workflow's condition().
      paymentTtlMs: Math.max(1, extra.paymentTtlMs ?? config.STORE_ORDER_PAYMENT_TTL),
      deliveryDeadlineMs: config.STORE_DELIVERY_DEADLINE,
      pollIntervalMs: config.STORE_ORDER_POLL_EVERY,
    },
  };
}

/** The run a requeue starts when the order's last one finished (its signal-with-start): the paid order, placing at once. */
export function requeuedRun(config: StoreOrderRunsConfig, orderId: string): RunStart {
  return {
    workflowType: STORE_ORDER_WORKFLOW_TYPE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    input: { ...storeOrderInput(config, orderId, { requeue: true }) },
    searchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES ? { OrderId: orderId } : undefined,
  };
}
