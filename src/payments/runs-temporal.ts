import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { PaymentRuns, ProcessorEvent } from './runs';
import {
  paymentWorkflowId,
  processorEventSignal,
  SETTLEMENT_WORKFLOW_TYPE,
  type SettlementWorkflow,
  type SettlementWorkflowInput,
} from '../../workflows/contracts/settlement-contract';
import { startOnce } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';

export type PaymentRunsConfig = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'PAYMENT_SETTLEMENT_SILENCE_SECONDS'
  | 'PAYMENT_SETTLEMENT_MAX_LOOKUPS'
  | 'PAYMENT_SETTLEMENT_LINGER_SECONDS'
  | 'TEMPORAL_SEARCH_ATTRIBUTES'
>;

/** The relay's wait for one hand-over: a Temporal that does not take the signal by then is retried later. */
const DELIVER_DEADLINE_MS = 5_000;
/** The create-intent's one try at starting settlement (a run not started by then is started by the processor's callback). */
const SETTLEMENT_START_DEADLINE_MS = 10_000;

/**
 * Id policies, chosen on purpose:
 * - startSettlement (payment create): REJECT_DUPLICATE + USE_EXISTING. A replayed create
 *   finds the running run, or the closed one and does nothing: one settlement per payment.
 * - deliverEvent (webhook relay): signal-with-start, which always signals a running run; when
 *   the run has closed, ALLOW_DUPLICATE starts a new one. Only events that can still change the
 *   payment are delivered (the route and the relay both skip completed payments and failures of
 *   failed ones), and a settled run stays open PAYMENT_SETTLEMENT_LINGER_SECONDS (longer than
 *   DELIVER_DEADLINE_MS) for deliveries that read the payment just before it settled. So a new
 *   run appears only for a success long after a failure (the processor's retry with another
 *   card); its activities are idempotent and the activation is signalled by the first settling
 *   run only.
 */
export function createPaymentRuns(client: Client, config: PaymentRunsConfig): PaymentRuns {
  const input = (paymentId: string): SettlementWorkflowInput => ({
    paymentId,
    silenceTimeoutMs: config.PAYMENT_SETTLEMENT_SILENCE_SECONDS * 1000,
    maxLookups: config.PAYMENT_SETTLEMENT_MAX_LOOKUPS,
    settledLingerMs: config.PAYMENT_SETTLEMENT_LINGER_SECONDS * 1000,
  });
  // Operators find a payment's run by `PaymentId = "…"` in the Temporal UI.
  const searchAttributes = (paymentId: string) =>
    config.TEMPORAL_SEARCH_ATTRIBUTES ? new TypedSearchAttributes([{ key: SEARCH_ATTRIBUTES.PaymentId, value: paymentId }]) : undefined;
  return {
    async startSettlement(paymentId) {
      await startOnce(
        client,
        () =>
          client.workflow.start<SettlementWorkflow>(SETTLEMENT_WORKFLOW_TYPE, {
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowId: paymentWorkflowId(paymentId),
            args: [input(paymentId)],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
            typedSearchAttributes: searchAttributes(paymentId),
          }),
        SETTLEMENT_START_DEADLINE_MS,
      );
    },

    async deliverEvent(paymentId, event) {
      const deadline = Date.now() + DELIVER_DEADLINE_MS;
      for (let attempt = 1; ; attempt++) {
        try {
          await client.withDeadline(deadline, () =>
            client.workflow.signalWithStart<SettlementWorkflow, [ProcessorEvent]>(SETTLEMENT_WORKFLOW_TYPE, {
              taskQueue: config.TEMPORAL_TASK_QUEUE,
              workflowId: paymentWorkflowId(paymentId),
              args: [input(paymentId)],
              signal: processorEventSignal,
              signalArgs: [event],
              workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
              typedSearchAttributes: searchAttributes(paymentId),
            }),
          );
          return;
        } catch (err) {
          // Two deliveries racing to start the same run: the loser signals the winner's run on retry
          // (the real server resolves this itself; the Java test server answers "already started").
          if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt >= 3) throw err;
        }
      }
    },
  };
}
