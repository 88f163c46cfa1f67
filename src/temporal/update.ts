import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { AppError, isErrorCode } from '../http/errors';

/** How long an API request waits for a workflow to take and answer an update. */
export const UPDATE_DEADLINE_MS = 15_000;

export interface UpdateOptions<Args> {
  args: Args;
  /** Makes a repeated call the same update (the workflow runs it once). */
  updateId?: string;
  deadlineMs?: number;
}

/**
 * Executes an update and waits for its result, for at most `deadlineMs`: without a
 * deadline the client keeps retrying until some worker takes the update, and the
 * request would hang while the workers are away.
 *
 * Failures, mapped for the API:
 * - the workflow refused or failed the update with an ApplicationFailure whose `type` is a
 *   spec error code (a validator's `ApplicationFailure.create({ type: 'COMPANY_INVALID_TRANSITION',
 *   details: [{ from, action }], nonRetryable: true })`): `AppError(type, { details })`;
 * - the deadline passed: `AppError('SERVICE_UNAVAILABLE')`. The outcome is then unknown: the
 *   server may still hand the update to a worker later, so updates must be safe to repeat;
 * - anything else (another failure type, workflow not found, Temporal unreachable) passes through.
 */
export async function executeUpdate<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: UpdateOptions<Args>,
): Promise<Ret> {
  const deadlineMs = options.deadlineMs ?? UPDATE_DEADLINE_MS;
  const signal = AbortSignal.timeout(deadlineMs);
  try {
    return await handle.client.withAbortSignal(signal, () =>
      handle.executeUpdate(update, { args: options.args, updateId: options.updateId }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw refusal(err);
    if (signal.aborted || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: `update ${update.name} of ${handle.workflowId} not answered within ${deadlineMs} ms`,
      });
    }
    throw err;
  }
}

/** The workflow's own answer: a spec code becomes that AppError, anything else stays as it is. */
function refusal(err: WorkflowUpdateFailedError): Error {
  const failure = err.cause;
  if (!(failure instanceof ApplicationFailure) || !failure.type || !isErrorCode(failure.type)) return err;
  return new AppError(failure.type, { details: detailsOf(failure.details), message: failure.message });
}

/** Workflows put one details object (`{ from, action }`); several are kept as a list. */
function detailsOf(details: unknown[] | undefined | null): unknown {
  if (!details?.length) return undefined;
  return details.length === 1 ? details[0] : details;
}
