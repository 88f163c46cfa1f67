import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ActivationStatus, IdentityStatus } from '../src/entities/activation';
import {
  IDENTITY_ERROR,
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
} from './activation-contract';

const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const identity = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [IDENTITY_ERROR] },
});
// Operators are slow and flaky: transient failures retry without limit (never surfaced);
// a definite refusal is non-retryable and ends the activation `failed`. The activity
// heartbeats while it waits, so a worker lost mid-handoff is retried within seconds.
const operator = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [OPERATOR_REJECTION],
  },
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
 * `error` while the activation is pending.
 */
export async function activationWorkflow(input: ActivationWorkflowInput): Promise<ActivationStatus> {
  const { activationId, timers } = input;
  const state: ActivationState = { status: 'pending', identityStatus: 'waiting', paid: input.paid ?? false };
  let transaction: Transaction | undefined;
  let generation = 0;
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
  setHandler(
    verifyIdentityUpdate,
    async ({ identityType, idNumber }) => {
      let started: { transId: string; randomCode: string };
      try {
        started = await identity.initiateIdentity({ activationId, identityType, idNumber });
      } catch (err) {
        // The provider refused or stayed down: the caller gets IDENTITY_ERROR, the activation stays pending.
        const message = err instanceof ActivityFailure && err.cause ? err.cause.message : 'Identity verification could not start';
        throw ApplicationFailure.nonRetryable(message, IDENTITY_ERROR);
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

  // Polls one verification until it is final, superseded by a newer one, or the activation times out.
  const pollIdentity = async (tx: Transaction) => {
    for (;;) {
      const interrupted = await condition(() => tx.generation !== generation || timedOut, timers.identityPollIntervalMs);
      if (interrupted) return;
      const status: IdentityStatus = Date.now() >= tx.expiresAt ? 'expired' : await identity.pollIdentity({ transId: tx.transId });
      if (tx.generation !== generation) return;
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
    await condition(() => state.status !== 'pending', timers.cancelAfterMs);
    if (state.status === 'pending') timedOut = true;
  })();

  let polled = 0;
  for (;;) {
    const woke = await condition(
      () => timedOut || readyForHandoff(state) || (transaction !== undefined && transaction.generation !== polled),
      timers.paidCheckIntervalMs ?? 5 * 60_000,
    );
    if (!woke) {
      // No signal for a while: the payment may have completed while Temporal was away.
      if (!state.paid) state.paid = await records.isOrderPaid({ activationId });
      continue;
    }
    if (readyForHandoff(state)) break;
    if (timedOut) {
      await setStatus('cancelled');
      return finish('cancelled');
    }
    polled = transaction!.generation;
    await pollIdentity(transaction!);
    if (overLimit) return refused();
  }

  if (patched(SIM_LIMIT_AT_HANDOFF_PATCH)) {
    // The last SIM-limit gate and the move to in_progress, in one transaction under the person's lock.
    const claim = await records.startHandoff({ activationId });
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
    await setStatus('failed', { failedReason: cause.message });
  }
  void cancelTimer;
  return finish(state.status);

  /** A SIM-limit gate failed the activation and wrote why; the run ends `failed`. */
  function refused(): Promise<ActivationStatus> {
    if (input.searchAttributes) upsertSearchAttributes({ ActivationStatus: ['failed'] });
    return finish('failed');
  }

  async function finish(status: ActivationStatus): Promise<ActivationStatus> {
    state.status = status;
    // Let an in-flight update answer before the run closes.
    await condition(allHandlersFinished);
    return status;
  }
}

function readyForHandoff(state: ActivationState): boolean {
  return state.paid && state.identityStatus === 'completed';
}
