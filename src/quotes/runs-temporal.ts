import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { AppError } from '../http/errors';
import type { QuoteRuns } from './runs';
import { QUOTE_WORKFLOW_TYPE, type QuoteNegotiationWorkflow } from '../../workflows/contracts/quote-contract';
import {
  acceptUpdate,
  confirmContractUpdate,
  counterUpdate,
  declineUpdate,
  quoteRef,
  quoteWorkflowId,
  rejectUpdate,
  startReviewUpdate,
  submitUpdate,
  type QuoteAction,
  type QuoteActionRequest,
} from '../../workflows/contracts/quote-contract';
import { tipRefusal } from '../../workflows/contracts/quote-rules';
import { readQuoteTip } from './tip';
import { startOnce } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { executeAction, type ActionKey } from '../temporal/update';

export type QuoteRunsConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'WORKFLOW_CONTINUE_AS_NEW_AFTER'>;

/**
 * The QuoteRuns port on a Temporal client. Id policies, chosen on purpose: a chain's run is started
 * once, with its draft, with REJECT_DUPLICATE + USE_EXISTING, so a start that finds the chain's run
 * (running, or completed) counts as started and never opens a second one. A run completes when its
 * chain is finished (tip rejected, or a contract confirmed from it); an action on such a chain is
 * answered from the database with the code the run would have given (answerFinished).
 */
export function createQuoteRuns(
  client: Client,
  config: QuoteRunsConfig,
  opts: { db: Sql; startDeadlineMs?: number; updateDeadlineMs?: number },
): QuoteRuns {
  const handle = (chainRootId: string) => client.workflow.getHandle(quoteWorkflowId(chainRootId));

  /**
   * One action as the run's update (executeAction, its lease on the action's derived id: actionKey): a
   * request repeated after SERVICE_UNAVAILABLE, or after its process died, joins the first and gets its
   * one result; any other request, a repeat after an answer included, is judged afresh as the spec
   * answers it (a second confirm is CONTRACT_ALREADY_EXISTS, a confirm once its missing price is fixed
   * goes through). Never from the client's X-Request-Id, which a proxy may repeat for another action.
   */
  async function act<Req extends QuoteActionRequest, Res>(
    action: QuoteAction,
    update: UpdateDefinition<Res, [Req]>,
    chainRootId: string,
    request: Req,
  ): Promise<Res> {
    try {
      return await executeAction(handle(chainRootId), update, {
        args: [request],
        key: actionKey(action, request),
        db: opts.db,
        deadlineMs: opts.updateDeadlineMs,
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return answerFinished(action, chainRootId, request);
      throw err;
    }
  }

  /**
   * The chain's run has completed, or has not started yet (its start is pending: src/workflow-starts):
   * the stored tip says which refusal the run would give. Only a confirm on the accepted tip passes the
   * status table; that chain's contract was confirmed (why its run completed), so it is
   * CONTRACT_ALREADY_EXISTS as the index would answer. An action the tip allows waits for the run:
   * SERVICE_UNAVAILABLE, and the client repeats it once the start relay made it.
   */
  async function answerFinished(action: QuoteAction, chainRootId: string, request: QuoteActionRequest): Promise<never> {
    const tip = await readQuoteTip(opts.db, chainRootId);
    if (!tip) throw new AppError('QUOTE_NOT_FOUND');
    const refused = tipRefusal(action, tip, request.versionId);
    if (refused) throw new AppError(refused.type, { message: refused.message });
    if (action === 'confirmContract') throw new AppError('CONTRACT_ALREADY_EXISTS');
    throw new AppError('SERVICE_UNAVAILABLE', { message: `quote chain ${chainRootId} has no run (yet) while its tip allows ${action}` });
  }

  return {
    async start(input) {
      await startOnce(
        client,
        () =>
          client.workflow.start<QuoteNegotiationWorkflow>(QUOTE_WORKFLOW_TYPE, {
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowId: quoteWorkflowId(input.chainRootId),
            args: [{ ...input, continueAsNewAfter: input.continueAsNewAfter ?? config.WORKFLOW_CONTINUE_AS_NEW_AFTER }],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
            // Operators find a chain's run by `QuoteRef = "Q-…"`, and all of a company's by `CompanyId = "…"`.
            typedSearchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES
              ? new TypedSearchAttributes([
                  { key: SEARCH_ATTRIBUTES.CompanyId, value: input.companyId },
                  { key: SEARCH_ATTRIBUTES.QuoteRef, value: quoteRef(input.chainRootId) },
                ])
              : undefined,
          }),
        opts.startDeadlineMs,
      );
    },
    submit: (chainRootId, request) => act('submit', submitUpdate, chainRootId, request),
    startReview: (chainRootId, request) => act('startReview', startReviewUpdate, chainRootId, request),
    counter: (chainRootId, request) => act('counter', counterUpdate, chainRootId, request),
    accept: (chainRootId, request) => act('accept', acceptUpdate, chainRootId, request),
    decline: (chainRootId, request) => act('decline', declineUpdate, chainRootId, request),
    reject: (chainRootId, request) => act('reject', rejectUpdate, chainRootId, request),
    confirmContract: (chainRootId, request) => act('confirmContract', confirmContractUpdate, chainRootId, request),
  };
}

/**
 * What makes a quote action unique: the action, the version it is taken on (a version takes each
 * action at most once: every action moves it or its chain on), who takes it and what they send (a
 * counter's lines and note, a reject's note). Not the ip or user agent, which a retry may change.
 */
function actionKey(action: QuoteAction, request: QuoteActionRequest): ActionKey {
  const { versionId, actor, ...body } = request;
  return { action, appliesTo: versionId, body: { actor: actor.userId, ...body } };
}
