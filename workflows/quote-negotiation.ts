import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { QuoteActivities } from '../activities/quotes';
import { companyWorkflowId, readinessChangedSignal } from './contracts/company-contract';
import {
  acceptUpdate,
  allowed,
  confirmContractUpdate,
  counterUpdate,
  declineUpdate,
  QUOTE_ACTIONS_PER_RUN,
  quoteStateQuery,
  rejectUpdate,
  startReviewUpdate,
  submitUpdate,
  type QuoteAction,
  type QuoteActionRequest,
  type QuoteActionResult,
  type QuoteTip,
  type QuoteWorkflowInput,
  type QuoteWorkflowState,
} from './contracts/quote-contract';
import { QUOTE_REFUSAL_CODES, tipRefusal } from './contracts/quote-rules';

const ACTIONS: QuoteAction[] = ['submit', 'startReview', 'counter', 'accept', 'decline', 'reject', 'confirmContract'];

// An action's write: a caller waits for it (the API's deadline is 15 s), so a few quick attempts; a
// retried attempt recognises its own committed first attempt (activities/quotes.ts).
const records = proxyActivities<QuoteActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: [...QUOTE_REFUSAL_CODES],
  },
});

function refusal(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * One quote chain's negotiation (`quote:<chainRootId>`), started when the company creates the chain's
 * draft. Its state is the chain's tip; every action is an update whose validator checks it against
 * the tip before anything is written (tipRefusal), and the updates run one at a time, each checked
 * again against the tip the previous one left, so two people acting at once can never both win.
 *
 * The run completes when nothing more can happen to the chain: the tip is rejected (admin reject or
 * company decline), or a contract was confirmed from it (the company has its one active contract; a
 * later quote is a fresh chain). Actions on a completed chain are answered by the API from the
 * database (src/quotes/runs-temporal.ts). Continues as new after QUOTE_ACTIONS_PER_RUN actions, carrying the tip.
 */
export async function quoteNegotiationWorkflow(input: QuoteWorkflowInput): Promise<void> {
  const state: QuoteWorkflowState = { chainRootId: input.chainRootId, companyId: input.companyId, tip: input.tip };
  const actionsPerRun = input.continueAsNewAfter ?? QUOTE_ACTIONS_PER_RUN;
  let handled = 0;
  let contractConfirmed = false;
  let tellCompany = false;
  // The lock of actions: each one starts when the previous one has settled (FIFO, deterministic).
  let tail: Promise<unknown> = Promise.resolve();

  /** Throws the action's refusal against the current tip (validators, and again under the lock). */
  function check(action: QuoteAction, request: QuoteActionRequest): void {
    const refused = tipRefusal(action, state.tip, request.versionId);
    if (refused) throw refusal(refused.type, refused.message);
    // The chain's contract exists: the company has its active contract, so a second confirm is refused as the index would.
    if (action === 'confirmContract' && contractConfirmed)
      throw refusal('CONTRACT_ALREADY_EXISTS', 'a contract was confirmed from this quote');
  }

  /** Registers one action: validated before it enters history, run under the lock, the tip taken from what it wrote. */
  function handle<Req extends QuoteActionRequest, Res extends QuoteActionResult>(
    action: QuoteAction,
    update: UpdateDefinition<Res, [Req]>,
    write: (request: NoInfer<Req>) => Promise<{ tip: QuoteTip; answer: Res }>,
  ): void {
    setHandler(
      update,
      (request) => {
        const run = tail.then(async () => {
          check(action, request);
          const { tip, answer } = await writeOrRefresh(() => write(request));
          state.tip = tip;
          handled += 1;
          return answer;
        });
        tail = run.catch(() => undefined);
        return run;
      },
      { validator: (request: Req) => check(action, request) },
    );
  }
  /** An action's answer: the version it left as the tip, and its status. */
  const answered = async (written: Promise<QuoteTip>) => {
    const tip = await written;
    return { tip, answer: { versionId: tip.versionId, status: tip.status } };
  };

  setHandler(quoteStateQuery, () => state);
  handle('submit', submitUpdate, (request) => answered(records.quoteSubmit(request)));
  handle('startReview', startReviewUpdate, (request) => answered(records.quoteStartReview(request)));
  handle('counter', counterUpdate, (request) => answered(records.quoteCounter(request)));
  handle('accept', acceptUpdate, (request) => answered(records.quoteAccept(request)));
  handle('decline', declineUpdate, (request) => answered(records.quoteDecline(request)));
  handle('reject', rejectUpdate, (request) => answered(records.quoteReject(request)));
  handle('confirmContract', confirmContractUpdate, async (request) => {
    const { contractId, ...tip } = await records.quoteConfirmContract(request);
    contractConfirmed = true;
    tellCompany = true;
    return { tip, answer: { versionId: tip.versionId, status: tip.status, contractId } };
  });

  for (;;) {
    await condition(() => tellCompany || finished() || timeToContinue());
    if (tellCompany) {
      tellCompany = false;
      await signalCompany();
      continue;
    }
    await condition(allHandlersFinished);
    if (tellCompany) continue; // a handler finishing just now left a signal to send
    if (finished()) return;
    // The CompanyId and QuoteRef search attributes go along, so the chain's run stays findable by them.
    const next = makeContinueAsNewFunc<typeof quoteNegotiationWorkflow>({ typedSearchAttributes: workflowInfo().typedSearchAttributes });
    return next({ ...input, tip: state.tip });
  }

  /** Nothing more can happen to the chain: a contract was confirmed from it, or its tip allows no action (rejected). */
  function finished(): boolean {
    return contractConfirmed || !ACTIONS.some((action) => allowed(action, state.tip));
  }

  function timeToContinue(): boolean {
    return handled >= actionsPerRun || workflowInfo().continueAsNewSuggested;
  }

  /**
   * A refused or failed write leaves the tip as the database has it: refreshed from there (best effort),
   * so the run never acts on a tip the rows disagree with. The refusal answers the update with its code.
   */
  async function writeOrRefresh<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      await refreshTip();
      throw refusalOf(err);
    }
  }

  async function refreshTip(): Promise<void> {
    try {
      const stored = await records.quoteTip({ chainRootId: state.chainRootId });
      if (stored) state.tip = stored;
    } catch (err) {
      log.warn('quote tip not refreshed', { chainRootId: state.chainRootId, error: String(err) });
    }
  }

  /** The company's run recomputes readiness (contractConfirmed); best effort: a missing company run does not fail this one. */
  async function signalCompany(): Promise<void> {
    try {
      await getExternalWorkflowHandle(companyWorkflowId(state.companyId)).signal(readinessChangedSignal, { gate: 'contractConfirmed' });
    } catch (err) {
      log.warn('readiness signal not delivered to the company run', { companyId: state.companyId, error: String(err) });
    }
  }
}

/** A refusal of the write (a spec code) answers the update as it is; anything else passes through. */
function refusalOf(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type && (QUOTE_REFUSAL_CODES as readonly string[]).includes(cause.type)) {
    return ApplicationFailure.create({ message: cause.message, type: cause.type, details: cause.details ?? undefined, nonRetryable: true });
  }
  return err;
}
