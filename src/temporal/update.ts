import { createHash, randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import type { Sql } from '../db/sql';
import { AppError, isErrorCode } from '../http/errors';
import { expireUpdateLease, releaseUpdateLease, takeUpdateLease } from '../workflow-updates';

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
export function executeUpdate<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: UpdateOptions<Args>,
): Promise<Ret> {
  return answered(handle, update, options);
}

/**
 * What makes one action unique on the server: the same request sent again has the same key, and its
 * derived id (actionDerivedId) is the one its lease is taken on (executeAction).
 */
export interface ActionKey {
  /** The update and, where one update carries several actions, the action: `counter`, `changeStatus:suspend`. */
  action: string;
  /**
   * The state the action applies to, as the server reads it (never a client header): the quote version
   * acted on, the company after its n-th status change. A later action on a later state is another action.
   */
  appliesTo: string;
  /** What the request means: who acts and with what. Not its ip or user agent, which a retry may change. */
  body: unknown;
}

/** `<action>:<appliesTo>:<16 hex digits of the body's SHA-256>`: a different body is a different action. */
export function actionDerivedId(key: ActionKey): string {
  return `${key.action}:${key.appliesTo}:${digest(key.body)}`;
}

export interface ActionOptions<Args> {
  args: Args;
  key: ActionKey;
  /** Where the leases are (table workflow_update_leases). */
  db: Sql;
  deadlineMs?: number;
}

/** How long a lease outlives its request's deadline: a process that died mid-update leaves it to a retry after this. */
export const LEASE_MARGIN_MS = 5_000;

/**
 * An action as an update, so its answer is one of: the result; an error after which nothing happened;
 * or SERVICE_UNAVAILABLE, after which the same request sent again gets the one result. Every other
 * request is judged afresh by the run, as the spec answers it (a repeat after an answer, or a twin
 * sent at the same time, gets COMPANY_INVALID_TRANSITION, CONTRACT_ALREADY_EXISTS, …).
 *
 * The request first takes the lease on the action's derived id (src/workflow-updates/repository.ts):
 * - no lease on it yet: it sends a new update, `<derived id>:<uuid>`, the lease naming it;
 * - a lease that expired unanswered (a request that answered SERVICE_UNAVAILABLE, or whose process
 *   died mid-update): it takes it over and sends that lease's update id, so it joins that update
 *   (the run answers it from memory if it ran, or runs it now);
 * - a live lease (the same request is in flight right now, a double click): it is not a retry of that
 *   one; it sends an update id of its own, without a lease, and the run judges it on its own.
 * A definite outcome (the update's result or its failure, or no run to take it: nothing happened) ends
 * the lease, so the next identical request is a new update; an unknown one (the deadline, Temporal
 * unreachable) expires it at once, for the client's retry. Lease bookkeeping is best effort: it never
 * hides the update's answer.
 *
 * The run's memory is one run's: after a continue-as-new a joined id is unknown again and the retry is
 * judged anew (the run's state check refuses a second application). Deadline and failures as executeUpdate.
 */
export async function executeAction<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: ActionOptions<Args>,
): Promise<Ret> {
  const deadlineMs = options.deadlineMs ?? UPDATE_DEADLINE_MS;
  const derivedId = actionDerivedId(options.key);
  const fresh = `${derivedId}:${randomUUID()}`;
  const leased = await takeUpdateLease(options.db, derivedId, fresh, deadlineMs + LEASE_MARGIN_MS);
  if (leased === null) return answered(handle, update, { args: options.args, updateId: fresh, deadlineMs });
  return answered(handle, update, { args: options.args, updateId: leased, deadlineMs }, (definite) =>
    (definite ? releaseUpdateLease : expireUpdateLease)(options.db, derivedId, leased),
  );
}

/**
 * Executes the update under the deadline and maps its failures for the API (executeUpdate says how).
 * `settled` hears, before the caller does, whether the outcome is definite (the update's result or its
 * failure, or no run: executeAction says why) or unknown; its own failure is ignored.
 */
async function answered<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: UpdateOptions<Args>,
  settled?: (definite: boolean) => Promise<void>,
): Promise<Ret> {
  const deadlineMs = options.deadlineMs ?? UPDATE_DEADLINE_MS;
  const signal = AbortSignal.timeout(deadlineMs);
  const settle = async (definite: boolean) => {
    await settled?.(definite).catch(() => undefined);
  };
  let result: Ret;
  try {
    result = await handle.client.withAbortSignal(signal, () =>
      handle.executeUpdate(update, { args: options.args, updateId: options.updateId }),
    );
  } catch (err) {
    await settle(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError);
    if (err instanceof WorkflowUpdateFailedError) throw refusal(err);
    if (signal.aborted || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: `update ${update.name} of ${handle.workflowId} not answered within ${deadlineMs} ms`,
      });
    }
    throw err;
  }
  await settle(true);
  return result;
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

function digest(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex').slice(0, 16);
}

/** JSON with every object's keys in order, so one body always has one digest. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
