import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { SimType } from '../entities';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  orderPaidSignal,
  verifyIdentityUpdate,
  type ActivationWorkflowInput,
  type VerifyIdentityInput,
  type VerifyIdentityResult,
} from '../../workflows/activation-contract';
import { SEARCH_ATTRIBUTES } from './search-attributes';
import { executeUpdate } from './update';

export { SEARCH_ATTRIBUTES };

export interface StartActivation {
  activationId: string;
  userId: string;
  orderId: string;
  simType: SimType;
  paid?: boolean;
}

/** The API's side of the activation workflow: start, verify identity (update), order paid (signal). */
export interface ActivationWorkflows {
  start(activation: StartActivation): Promise<void>;
  /** Refusals come back as AppError('IDENTITY_ERROR'), no answer in time as AppError('SERVICE_UNAVAILABLE'). */
  verifyIdentity(activationId: string, input: VerifyIdentityInput): Promise<VerifyIdentityResult>;
  orderPaid(activationId: string, paymentId: string): Promise<void>;
}

export type ActivationWorkflowConfig = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'ACTIVATION_CANCEL_AFTER_SECONDS'
  | 'IDENTITY_POLL_INTERVAL_SECONDS'
  | 'IDENTITY_REQUEST_TTL_SECONDS'
  | 'ACTIVATION_PAID_CHECK_SECONDS'
  | 'TEMPORAL_SEARCH_ATTRIBUTES'
>;

export function createActivationWorkflows(client: Client, config: ActivationWorkflowConfig): ActivationWorkflows {
  const useSearchAttributes = config.TEMPORAL_SEARCH_ATTRIBUTES;
  return {
    async start(a) {
      const input: ActivationWorkflowInput = {
        activationId: a.activationId,
        simType: a.simType,
        paid: a.paid,
        searchAttributes: useSearchAttributes,
        timers: {
          cancelAfterMs: config.ACTIVATION_CANCEL_AFTER_SECONDS * 1000,
          identityPollIntervalMs: config.IDENTITY_POLL_INTERVAL_SECONDS * 1000,
          identityRequestTtlMs: config.IDENTITY_REQUEST_TTL_SECONDS * 1000,
          paidCheckIntervalMs: config.ACTIVATION_PAID_CHECK_SECONDS * 1000,
        },
      };
      await client.workflow.start(activationWorkflow, {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: activationWorkflowId(a.activationId),
        args: [input],
        // One run per activation, ever: a duplicate start must fail loudly.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        typedSearchAttributes: useSearchAttributes
          ? new TypedSearchAttributes([
              { key: SEARCH_ATTRIBUTES.ActivationId, value: a.activationId },
              { key: SEARCH_ATTRIBUTES.UserId, value: a.userId },
              { key: SEARCH_ATTRIBUTES.OrderId, value: a.orderId },
              { key: SEARCH_ATTRIBUTES.SimType, value: a.simType },
              { key: SEARCH_ATTRIBUTES.ActivationStatus, value: 'pending' },
            ])
          : undefined,
      });
    },

    async verifyIdentity(activationId, input) {
      return executeUpdate(client.workflow.getHandle(activationWorkflowId(activationId)), verifyIdentityUpdate, { args: [input] });
    },

    async orderPaid(activationId, paymentId) {
      await client.workflow.getHandle(activationWorkflowId(activationId)).signal(orderPaidSignal, { paymentId });
    },
  };
}
