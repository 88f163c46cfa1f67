import { createHash, randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
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
export function executeUpdate<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: UpdateOptions<Args>,
): Promise<Ret> {
  return answered(handle, update.name, options.deadlineMs, () =>
    handle.executeUpdate(update, { args: options.args, updateId: options.updateId }),
  );
}

/**
 * What makes one action unique on the server. Its update id is derived from it (actionUpdateId), so
 * the same request sent again is the same update, and the run answers it with the first one's result.
 */
export interface ActionKey {
  /** The update and, where one update carries several actions, the action: `counter`, `changeStatus:suspend`. */
  action: string;
  /**
   * The state the action applies to, as the server reads it (never a client header): the quote version
   * acted on, the company after its n-th status change. A later action on a later state is a new update.
   */
  appliesTo: string;
  /** What the request means: who acts and with what. Not its ip or user agent, which a retry may change. */
  body: unknown;
}

/** `<action>:<appliesTo>:<16 hex digits of the body's SHA-256>`: a different body never joins another's answer. */
export function actionUpdateId(key: ActionKey): string {
  return `${key.action}:${key.appliesTo}:${digest(key.body)}`;
}

export interface ActionOptions<Args> {
  args: Args;
  key: ActionKey;
  deadlineMs?: number;
}

/**
 * After this many remembered failures of one request in one run, its next try gets an id of its own:
 * it is still judged anew, only a repeat of that try no longer joins it.
 */
const REMEMBERED_FAILURES_MAX = 32;

/**
 * An action as an update whose id is derived from the action (actionUpdateId), so an answer is one of:
 * the result; an error after which nothing happened; or SERVICE_UNAVAILABLE, after which the same
 * request sent again gets the one result (it joins the first, pending or done, rather than being
 * applied twice or refused as a move from the state the first left).
 *
 * A run remembers every update it accepted, failures too: a request whose update failed (the company
 * had no payment mode, a price was missing, the write gave up) is judged anew when repeated, under
 * the next id of its chain (`<id>#1`, `<id>#2`, …), since nothing happened and the cause may be
 * gone. So the chain is read first (a poll answers from the run's memory, no worker needed): a
 * remembered result is the answer, a remembered failure moves on, an unknown id is sent.
 *
 * The run's memory is one run's: after a continue-as-new, or for a run that never started, an id is
 * unknown again and the request is judged anew (the run's state check refuses a second application).
 * Deadline and failures as executeUpdate.
 */
export function executeAction<Ret, Args extends [unknown, ...unknown[]]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  options: ActionOptions<Args>,
): Promise<Ret> {
  const first = actionUpdateId(options.key);
  return answered(handle, update.name, options.deadlineMs, async () => {
    for (let n = 0; n < REMEMBERED_FAILURES_MAX; n++) {
      const updateId = n === 0 ? first : `${first}#${n}`;
      const remembered = await recall<Ret>(handle, updateId);
      if (remembered === 'unknown') return handle.executeUpdate(update, { args: options.args, updateId });
      if (remembered.done) return remembered.result;
    }
    return handle.executeUpdate(update, { args: options.args, updateId: `${first}#${randomUUID()}` });
  });
}

type Remembered<Ret> = 'unknown' | { done: true; result: Ret } | { done: false };

/** What the workflow's current run remembers of an update id (waiting for it, if it is still under way). */
async function recall<Ret>(handle: WorkflowHandle, updateId: string): Promise<Remembered<Ret>> {
  try {
    return { done: true, result: await handle.getUpdateHandle<Ret>(updateId).result() };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return { done: false };
    // No such update in the current run, or no run at all (executing it tells the caller which).
    if (err instanceof WorkflowNotFoundError) return 'unknown';
    throw err;
  }
}

/** Runs `call` under the deadline and maps its failures for the API (executeUpdate says how). */
async function answered<Ret>(
  handle: WorkflowHandle,
  updateName: string,
  deadlineMs: number | undefined,
  call: () => Promise<Ret>,
): Promise<Ret> {
  const ms = deadlineMs ?? UPDATE_DEADLINE_MS;
  const signal = AbortSignal.timeout(ms);
  try {
    return await handle.client.withAbortSignal(signal, call);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw refusal(err);
    if (signal.aborted || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: `update ${updateName} of ${handle.workflowId} not answered within ${ms} ms`,
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
