import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../config';
import type { SimType } from '../entities';
import {
  orderPaidSignal,
  verifyIdentityUpdate,
  type ActivationWorkflowInput,
  type VerifyIdentityInput,
  type VerifyIdentityResult,
} from '../../workflows/activation';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export { SEARCH_ATTRIBUTES };

export const activationWorkflowId = (activationId: string) => `activation:${activationId}`;

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
  verifyIdentity(activationId: string, input: VerifyIdentityInput): Promise<VerifyIdentityResult>;
  orderPaid(activationId: string, paymentId: string): Promise<void>;
}

/** The update answered with a business refusal (its ApplicationFailure type). */
export class WorkflowRefusal extends Error {
  constructor(
    readonly type: string | undefined,
    message: string,
  ) {
    super(message);
  }
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

const UPDATE_DEADLINE_MS = 15_000;

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
      await client.workflow.start('activationWorkflow', {
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
      const handle = client.workflow.getHandle(activationWorkflowId(activationId));
      // The client retries an update until a worker takes it: bound it.
      const signal = AbortSignal.timeout(UPDATE_DEADLINE_MS);
      try {
        return await client.withAbortSignal(signal, () => handle.executeUpdate(verifyIdentityUpdate, { args: [input] }));
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) {
          const cause = err.cause as { type?: string; message?: string } | undefined;
          throw new WorkflowRefusal(cause?.type, cause?.message ?? err.message);
        }
        throw err;
      }
    },

    async orderPaid(activationId, paymentId) {
      await client.workflow.getHandle(activationWorkflowId(activationId)).signal(orderPaidSignal, { paymentId });
    },
  };
}
