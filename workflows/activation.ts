import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  type LocalActivityOptions,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { ActivationActivities } from '../activities/activations';
import type { PaymentActivities } from '../activities/payments';
import type { ActivationStatus, IdentityStatus } from '../src/entities/activation';
import {
  ACTIVATION_END_REASONS,
  FINAL_STATUS_PATCH,
  IDENTITY_ERROR,
  identityStartedSignal,
  IDENTITY_POLL_PATCH,
  IDENTITY_PROVIDER_UNAVAILABLE,
  LOCAL_HANDOFF_PATCH,
  OPERATOR_REJECTION,
  orderPaidSignal,
  SIM_LIMIT_AT_HANDOFF_PATCH,
  SIM_LIMIT_AT_VERIFICATION_PATCH,
  stateQuery,
  verifyIdentityUpdate,
  type ActivationState,
  type ActivationWorkflowInput,
  type SimLimitVerdict,
  type VerifyIdentityInput,
} from './contracts/activation-contract';

/**
 * The activities this workflow calls: its own (activities/activations.ts) and, once it ended, the
 * payments' cancellation of the order's open intents (activities/payments.ts, beside the settlement
 * that would take the money).
 */
type ActivationWorkflowActivities = ActivationActivities & Pick<PaymentActivities, 'cancelOpenIntents'>;

const RECORDS: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
const records = proxyActivities<ActivationWorkflowActivities>(RECORDS);
// The handoff's gate is one short transaction on the money path: run inside the workflow task that
// heard "order paid" (a local activity), so that task already schedules the operator call.
const local = proxyLocalActivities<ActivationWorkflowActivities>(RECORDS);
// Status polls as they were before IDENTITY_POLL_PATCH (runs replaying a poll recorded then).
const identityBeforePatch = proxyActivities<ActivationWorkflowActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [IDENTITY_ERROR] },
});
// Initiation answers the API's verify-identity call, which waits 15 s (src/temporal/update.ts). The provider's
// answer is final: a refusal or an unavailable provider (the HTTP adapter retries transient failures inside
// the call) fails the attempt non-retryably, IDENTITY_ERROR, and the person tries again. A lost worker is
// retried: the activity heartbeats while the call is in flight, so a worker lost mid-call is noticed within
// 3 s (a timeout) and the call runs again on another worker with the same idempotency key, all of it within
// 12 s. (A failed write of the answer is retried the same way.)
const identityStart = proxyActivities<ActivationWorkflowActivities>({
  startToCloseTimeout: '10 seconds',
  heartbeatTimeout: '3 seconds',
  scheduleToCloseTimeout: '12 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 1,
    nonRetryableErrorTypes: [IDENTITY_ERROR, IDENTITY_PROVIDER_UNAVAILABLE],
  },
});
/**
 * Status polls: a provider outage is retried with backoff for as long as the activation may live
 * (scheduleToClose ends at its deadline), and the poll is abandoned when a newer verification
 * supersedes it or the deadline passes.
 */
const identityPoll = (deadline: number) =>
  proxyActivities<ActivationWorkflowActivities>({
    startToCloseTimeout: '20 seconds',
    scheduleToCloseTimeout: Math.max(1_000, deadline - Date.now()),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
// Operators are slow and flaky: transient failures retry without limit (never surfaced);
// a definite refusal is non-retryable and ends the activation `failed`. The activity
// heartbeats while it waits, so a worker lost mid-handoff is retried within seconds.
const operator = proxyActivities<ActivationWorkflowActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [OPERATOR_REJECTION],
  },
});
// The card processor may be down for a while: keep asking, with backoff (the row is already final).
const processor = proxyActivities<ActivationWorkflowActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

interface Transaction {
  generation: number;
  transId: string;
  expiresAt: number;
}

/**
 * One activation from `pending` to `activated`, `failed` or `cancelled`.
 * Completion needs a paid order and a completed identity verification, in
 * either order; verification may be restarted after `rejected`, `expired` or
 * `error` while the activation is pending. Every exit writes a final status
 * (FINAL_STATUS_PATCH), which frees the serial and the person's SIM slot.
 */
export async function activationWorkflow(input: ActivationWorkflowInput): Promise<ActivationStatus> {
  const { activationId, timers } = input;
  const state: ActivationState = { status: 'pending', identityStatus: 'waiting', paid: input.paid ?? false };
  /** The cancel deadline: nothing the run waits for outlives it. */
  const deadline = Date.now() + timers.cancelAfterMs;
  let transaction: Transaction | undefined;
  let generation = 0;
  /** The newest verification attempt the API told of (identityStartedSignal). */
  let lastAttempt = 0;
  let timedOut = false;
  /** Set when a SIM-limit gate failed the activation (the activity already wrote it and why). */
  let overLimit = false;

  // Rejected before it enters history: only a pending activation may (re)start verification.
  // (Typed here, not inline: the update's argument type is inferred from the validator.)
  const onlyWhilePending: (input: VerifyIdentityInput) => void = () => {
    if (state.status !== 'pending' || state.identityStatus === 'completed' || timedOut) {
      throw ApplicationFailure.nonRetryable('Activation is not pending', IDENTITY_ERROR);
    }
  };

  setHandler(stateQuery, () => state);
  setHandler(orderPaidSignal, ({ paymentId }) => {
    if (!state.paid && input.searchAttributes) upsertSearchAttributes({ PaymentId: [paymentId] });
    state.paid = true;
  });
  // The API started the verification and recorded it; the run only polls it. Delivered at least once,
  // and a later attempt may overtake an earlier one: only a newer attempt counts.
  setHandler(identityStartedSignal, ({ transId, attempt }) => {
    if (attempt <= lastAttempt || state.status !== 'pending' || state.identityStatus === 'completed' || timedOut) return;
    lastAttempt = attempt;
    generation += 1;
    transaction = { generation, transId, expiresAt: Date.now() + timers.identityRequestTtlMs };
    state.identityStatus = 'waiting';
  });
  setHandler(
    verifyIdentityUpdate,
    async ({ identityType, idNumber }) => {
      let started: { transId: string; randomCode: string };
      try {
        started = await identityStart.initiateIdentity({ activationId, identityType, idNumber });
      } catch (err) {
        throw initiationRefusal(err);
      }
      generation += 1;
      transaction = { generation, transId: started.transId, expiresAt: Date.now() + timers.identityRequestTtlMs };
      state.identityStatus = 'waiting';
      return { transId: started.transId, randomCode: started.randomCode, status: 'waiting' as const };
    },
    { validator: onlyWhilePending },
  );

  const setStatus = async (status: ActivationStatus, extra: { failedReason?: string } = {}) => {
    state.status = status;
    if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: [status] });
    await records.recordActivationStatus({ activationId, status, ...extra });
  };

  const superseded = (tx: Transaction) => tx.generation !== generation || timedOut;

  /**
   * One status answer, or `superseded` when a newer verification or the deadline made it moot. A
   * poll that fails for good (not an outage: those are retried) ends the verification as `error`.
   */
  const pollOnce = async (tx: Transaction): Promise<IdentityStatus | 'superseded'> => {
    try {
      return await CancellationScope.cancellable(async () => {
        try {
          return await Promise.race([
            identityPoll(deadline).pollIdentity({ transId: tx.transId }),
            condition(() => superseded(tx)).then(() => 'superseded' as const),
          ]);
        } finally {
          CancellationScope.current().cancel(); // whichever is still pending
        }
      });
    } catch (err) {
      // Retries stop when the next one would pass the deadline (up to a backoff interval before it):
      // the activation ends at its deadline, not the verification now.
      const outOfTime = err instanceof ActivityFailure && err.retryState === RetryState.TIMEOUT;
      if (superseded(tx) || outOfTime || Date.now() >= deadline) return 'superseded';
      if (isCancellation(err)) throw err; // the run itself is being cancelled
      log.warn('identity status could not be read; the verification ends in error', { activationId, error: String(err) });
      return 'error';
    }
  };

  // Polls one verification until it is final, superseded by a newer one, or the activation times out.
  const pollIdentity = async (tx: Transaction) => {
    for (;;) {
      const interrupted = await condition(() => superseded(tx), timers.identityPollIntervalMs, { summary: 'next identity status poll' });
      if (interrupted) return;
      let status: IdentityStatus | 'superseded';
      if (Date.now() >= tx.expiresAt) status = 'expired';
      else if (patched(IDENTITY_POLL_PATCH)) status = await pollOnce(tx);
      else status = await identityBeforePatch.pollIdentity({ transId: tx.transId });
      if (status === 'superseded' || tx.generation !== generation) return;
      if (status === 'waiting') continue;
      state.identityStatus = status;
      // Undefined in histories recorded before the gate existed (the activity returned nothing then).
      const verdict: SimLimitVerdict | undefined = await records.recordIdentityStatus({
        activationId,
        transId: tx.transId,
        identityStatus: status,
      });
      if (verdict?.withinLimit === false && patched(SIM_LIMIT_AT_VERIFICATION_PATCH)) overLimit = true;
      return;
    }
  };

  const cancelTimer = (async () => {
    await condition(() => state.status !== 'pending', timers.cancelAfterMs, { summary: 'cancel deadline: verified and paid by then' });
    if (state.status === 'pending') timedOut = true;
  })();
  // Cancelling the run rejects the timer too; the main path handles that cancellation.
  cancelTimer.catch(() => undefined);

  try {
    return await run();
  } catch (err) {
    // Only failures that would end the run: a bug in this code fails the workflow task instead, and is retried.
    if (!(err instanceof TemporalFailure) || !patched(FINAL_STATUS_PATCH)) throw err;
    await CancellationScope.nonCancellable(() => lastResort(err));
    throw err;
  }

  async function run(): Promise<ActivationStatus> {
    let polled = 0;
    for (;;) {
      const woke = await condition(
        () => timedOut || readyForHandoff(state) || (transaction !== undefined && transaction.generation !== polled),
        timers.paidCheckIntervalMs ?? 5 * 60_000,
        { summary: 'paid check: no signal for a while' },
      );
      if (!woke) {
        // No signal for a while: the payment may have completed while Temporal was away.
        if (!state.paid) state.paid = await records.isOrderPaid({ activationId });
        continue;
      }
      if (readyForHandoff(state)) break;
      if (timedOut) {
        if (!patched(FINAL_STATUS_PATCH)) {
          await setStatus('cancelled');
          return finish('cancelled');
        }
        // A last look at the order, under its lock: a payment that landed meanwhile is not cancelled.
        const verified = state.identityStatus === 'completed';
        const end = await records.endActivation({
          activationId,
          status: 'cancelled',
          reason: verified ? ACTIVATION_END_REASONS.notPaid : ACTIVATION_END_REASONS.identityNotCompleted,
          unlessPaid: verified,
        });
        if (!end.paid) return ended(end.status);
        state.paid = true;
        continue;
      }
      polled = transaction!.generation;
      await pollIdentity(transaction!);
      if (overLimit) return refused();
    }

    if (patched(SIM_LIMIT_AT_HANDOFF_PATCH)) {
      // The last SIM-limit gate and the move to in_progress, in one transaction under the person's lock.
      const startHandoff = patched(LOCAL_HANDOFF_PATCH) ? local.startHandoff : records.startHandoff;
      const claim = await startHandoff({ activationId });
      if (!claim.withinLimit) return refused();
      state.status = 'in_progress';
      if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: ['in_progress'] });
    } else {
      await setStatus('in_progress');
    }
    try {
      if (input.simType === 'esim') {
        await operator.issueEsim({ activationId });
        await records.sendEsimQrEmail({ activationId });
      } else {
        await operator.activateSim({ activationId });
      }
      state.status = 'activated';
      if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: ['activated'] });
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (!(cause instanceof ApplicationFailure) || cause.type !== OPERATOR_REJECTION) throw err;
      // The activity flags a paid order for refund (the money was taken).
      await setStatus('failed', { failedReason: cause.message });
      if (patched(FINAL_STATUS_PATCH)) return ended('failed');
    }
    return finish(state.status);
  }

  /** A SIM-limit gate failed the activation and wrote why (and flagged a paid order for refund); the run ends `failed`. */
  async function refused(): Promise<ActivationStatus> {
    if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: ['failed'] });
    if (patched(FINAL_STATUS_PATCH)) return ended('failed');
    return finish('failed');
  }

  /** The row holds its final status: cancel what may still take money for this order, then close. */
  async function ended(status: ActivationStatus): Promise<ActivationStatus> {
    state.status = status;
    if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: [status] });
    await processor.cancelOpenIntents({ activationId, runId: workflowInfo().runId });
    return finish(status);
  }

  /**
   * The run is ending on a failure nobody handled (an activity that failed for good, a cancel from
   * support): write a final status so the serial and the SIM slot are freed and an unpaid order is
   * cancelled (a paid one is flagged for refund). The failure is then rethrown, so the run shows why.
   */
  async function lastResort(err: TemporalFailure): Promise<void> {
    const cancelled = isCancellation(err);
    log.error('activation run ends on an unhandled failure; recording a final status', { activationId, cancelled, error: String(err) });
    const end = await records.endActivation({
      activationId,
      status: cancelled ? 'cancelled' : 'failed',
      reason: cancelled ? ACTIVATION_END_REASONS.cancelledBySupport : ACTIVATION_END_REASONS.internalError,
      unlessPaid: false,
    });
    state.status = end.status;
    if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: [end.status] });
    await processor.cancelOpenIntents({ activationId, runId: workflowInfo().runId });
  }

  async function finish(status: ActivationStatus): Promise<ActivationStatus> {
    state.status = status;
    // Let an in-flight update answer before the run closes.
    await condition(allHandlersFinished);
    return status;
  }
}

/** IDENTITY_ERROR for the API, saying whether the provider refused or could not be reached (try again). */
function initiationRefusal(err: unknown): ApplicationFailure {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === IDENTITY_ERROR)
    return ApplicationFailure.nonRetryable(cause.message, IDENTITY_ERROR);
  return ApplicationFailure.create({
    message: 'The identity provider is unavailable, please try again',
    type: IDENTITY_ERROR,
    nonRetryable: true,
    details: [{ reason: IDENTITY_PROVIDER_UNAVAILABLE }],
  });
}

function readyForHandoff(state: ActivationState): boolean {
  return state.paid && state.identityStatus === 'completed';
}
