import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CompanyActivities } from '../activities/companies';
import {
  changeStatusUpdate,
  COMPANY_EVENTS_PER_RUN,
  COMPANY_INVALID_TRANSITION,
  COMPANY_NOT_FOUND,
  companyStateQuery,
  READINESS_RECHECK_MS,
  readinessChangedSignal,
  STATUS_WAKE_PATCH,
  transitionOf,
  type CompanyAction,
  type CompanyNotice,
  type CompanyStatusValue,
  type CompanyWorkflowInput,
  type CompanyWorkflowState,
  type Readiness,
  type StatusChangeRequest,
  type StatusChangeResult,
} from './contracts/company-contract';

const NOT_READY: Readiness = { contractConfirmed: false, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };

// Database work: retried with backoff until it succeeds; a definite refusal is not retried.
const records = proxyActivities<CompanyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [COMPANY_INVALID_TRANSITION, COMPANY_NOT_FOUND],
  },
});
// Notices are best effort: a few attempts, then the run logs and moves on.
const notices = proxyActivities<CompanyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});

function invalidTransition(from: CompanyStatusValue, action: CompanyAction): ApplicationFailure {
  return ApplicationFailure.create({
    message: `A ${from} company cannot be ${action}d`,
    type: COMPANY_INVALID_TRANSITION,
    details: [{ from, action }],
    nonRetryable: true,
  });
}

/**
 * One company's onboarding, for the company's whole life (`company:<companyId>`). It owns the status
 * (changeStatus updates, taken one at a time) and readiness (recomputed from the database when a
 * readiness signal arrives; a burst of signals is one recompute). Notices (approval, canSendLinks
 * turning true) are sent after the change they announce, best effort, from the main loop, so an
 * update answers as soon as its rows are written. Continues as new when the history grows.
 */
export async function companyOnboardingWorkflow(input: CompanyWorkflowInput): Promise<void> {
  const { companyId } = input;
  const state: CompanyWorkflowState = {
    status: input.status,
    readiness: input.readiness ?? NOT_READY,
    canSendLinksFlips: input.canSendLinksFlips ?? 0,
  };
  const eventsPerRun = input.continueAsNewAfter ?? COMPANY_EVENTS_PER_RUN;
  let handled = 0;
  let readinessStale = false;
  const pendingNotices: CompanyNotice[] = [];
  // The lock of status changes: each one starts when the previous one has settled (FIFO, deterministic).
  let statusTail: Promise<unknown> = Promise.resolve();

  // Checked before the update enters history: a refused action writes nothing, not even an event.
  const allowedNow = (request: StatusChangeRequest): void => {
    if (!transitionOf(state.status, request.action)) throw invalidTransition(state.status, request.action);
  };

  setHandler(companyStateQuery, () => state);
  setHandler(readinessChangedSignal, () => {
    readinessStale = true;
  });
  setHandler(
    changeStatusUpdate,
    (request) => {
      const change = statusTail.then(() => changeStatus(request));
      statusTail = change.catch(() => undefined);
      return change;
    },
    { validator: allowedNow },
  );

  for (;;) {
    if (!(await workToDo())) readinessStale = true; // no signal for a while: one may have been lost
    if (readinessStale) {
      readinessStale = false; // signals arriving while we read mark it stale again: one more read, not one per signal
      await recomputeReadiness();
    } else if (pendingNotices.length > 0) {
      await sendNotice(pendingNotices.shift()!);
    } else if (timeToContinue() || !patched(STATUS_WAKE_PATCH)) {
      await condition(allHandlersFinished);
      // A handler may have left work (a notice, a stale readiness) on its way out: do it in this run.
      if (!readinessStale && pendingNotices.length === 0) {
        // The CompanyId search attribute goes along, so the company's run stays findable by it.
        const next = makeContinueAsNewFunc<typeof companyOnboardingWorkflow>({
          typedSearchAttributes: workflowInfo().typedSearchAttributes,
        });
        return next({ ...input, status: state.status, readiness: state.readiness, canSendLinksFlips: state.canSendLinksFlips });
      }
    }
    // Else woken by a status change alone: the next wait has or loses its recheck (STATUS_WAKE_PATCH).
  }

  /** Waits for work; false when an approved company's run waited READINESS_RECHECK_MS without any. */
  async function workToDo(): Promise<boolean> {
    const approved = state.status === 'approved';
    // A status change (reactivate, suspend) is a reason to wake too: the next wait has or loses its recheck.
    const work = () => readinessStale || pendingNotices.length > 0 || timeToContinue() || (state.status === 'approved') !== approved;
    if (!approved) {
      await condition(work);
      return true;
    }
    return condition(work, input.readinessRecheckMs ?? READINESS_RECHECK_MS, { summary: 'readiness recheck' });
  }

  function timeToContinue(): boolean {
    return handled >= eventsPerRun || workflowInfo().continueAsNewSuggested;
  }

  /** Runs under the lock: the transition is checked again against the status the previous change left. */
  async function changeStatus(request: StatusChangeRequest): Promise<StatusChangeResult> {
    const from = state.status;
    const to = transitionOf(from, request.action);
    if (!to) throw invalidTransition(from, request.action);
    const { action, actorUserId, reason, ip, userAgent } = request;
    try {
      await records.writeCompanyStatus({ companyId, from, to, action, actorUserId, reason, ip, userAgent });
    } catch (err) {
      throw refusalOf(err);
    }
    state.status = to;
    handled += 1;
    if (action === 'approve') pendingNotices.push('approved');
    if (action === 'suspend') {
      const { revoked } = await records.revokeCompanySessions({ companyId });
      log.info('company suspended: member sessions revoked', { companyId, revoked });
    }
    return { from, to };
  }

  async function recomputeReadiness(): Promise<void> {
    const before = state.readiness;
    state.readiness = await records.companyReadiness({ companyId });
    handled += 1;
    if (!before.canSendLinks && state.readiness.canSendLinks) {
      state.canSendLinksFlips += 1;
      pendingNotices.push('ready_to_send_links');
    }
  }

  /** Each message on its own, each failure logged: one admin's refused address never costs another their notice. */
  async function sendNotice(notice: CompanyNotice): Promise<void> {
    handled += 1;
    let deliveries;
    try {
      deliveries = await notices.companyNoticeDeliveries({ companyId });
    } catch (err) {
      log.warn('company notice not sent: recipients unreadable', { companyId, notice, error: String(err) });
      return;
    }
    await Promise.all(
      deliveries.map(async (delivery) => {
        try {
          await notices.sendCompanyNotice({ companyId, notice, ...delivery });
        } catch (err) {
          log.warn('company notice not delivered', { companyId, notice, ...delivery, error: String(err) });
        }
      }),
    );
  }
}

/** A refusal of the status write (the row was not where the run thought, or is gone) answers the update with its spec code. */
function refusalOf(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && (cause.type === COMPANY_INVALID_TRANSITION || cause.type === COMPANY_NOT_FOUND)) {
    return ApplicationFailure.create({ message: cause.message, type: cause.type, details: cause.details ?? undefined, nonRetryable: true });
  }
  return err;
}
