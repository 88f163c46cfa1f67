import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowNotFoundError } from '@temporalio/common';
import type { Logger } from 'pino';
import { statusAndChanges } from './repository';
import type { CompanyRuns } from './runs';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { AppError } from '../http/errors';
import { createLogger } from '../http/logger';
import { COMPANY_WORKFLOW_TYPE, type CompanyOnboardingWorkflow } from '../../workflows/contracts/company-contract';
import {
  changeStatusUpdate,
  COMPANY_TRANSITIONS,
  companyWorkflowId,
  readinessChangedSignal,
  type CompanyWorkflowInput,
  type StatusChangeRequest,
} from '../../workflows/contracts/company-contract';
import { startOnce } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { executeAction, type ActionKey } from '../temporal/update';

export type CompanyRunsConfig = Pick<
  Config,
  'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'LOG_LEVEL' | 'WORKFLOW_CONTINUE_AS_NEW_AFTER'
>;

/** A readiness signal is a hint (the run recomputes from the database): it never holds a request up for long. */
const SIGNAL_DEADLINE_MS = 5_000;

/**
 * The CompanyRuns port on a Temporal client. Id policies, chosen on purpose: the run is started once,
 * from the registration's pending start (by the API at once or by the start relay), with
 * REJECT_DUPLICATE + USE_EXISTING, so a start that finds the company's run (running, or closed by an
 * operator) counts as started and never opens a second one. `db`: a status action reads the
 * company's state there (its derived id) and takes its lease there (executeAction).
 */
export function createCompanyRuns(
  client: Client,
  config: CompanyRunsConfig,
  opts: { db: Sql; logger?: Pick<Logger, 'warn'>; startDeadlineMs?: number },
): CompanyRuns {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const handle = (companyId: string) => client.workflow.getHandle(companyWorkflowId(companyId));

  return {
    async start(companyId) {
      const input: CompanyWorkflowInput = { companyId, status: 'pending', continueAsNewAfter: config.WORKFLOW_CONTINUE_AS_NEW_AFTER };
      await startOnce(
        client,
        () =>
          client.workflow.start<CompanyOnboardingWorkflow>(COMPANY_WORKFLOW_TYPE, {
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            workflowId: companyWorkflowId(companyId),
            args: [input],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
            // Operators find a company's run by `CompanyId = "…"` in the Temporal UI.
            typedSearchAttributes: config.TEMPORAL_SEARCH_ATTRIBUTES
              ? new TypedSearchAttributes([{ key: SEARCH_ATTRIBUTES.CompanyId, value: companyId }])
              : undefined,
          }),
        opts.startDeadlineMs,
      );
    },

    async changeStatus(companyId, request) {
      // Leased on the action's derived id (statusActionKey), never on the client's X-Request-Id: the same request
      // sent again after SERVICE_UNAVAILABLE (or its process's death) joins the first and gets its one result;
      // any other, a repeat after an answer included, is judged afresh (COMPANY_INVALID_TRANSITION where the spec says so).
      const key = await statusActionKey(opts.db, companyId, request);
      try {
        return await executeAction(handle(companyId), changeStatusUpdate, { args: [request], key, db: opts.db });
      } catch (err) {
        // No run yet: its start is pending (Temporal was away at registration) and the start relay makes it
        // as soon as Temporal answers; the action may be repeated then. (Or an operator ended the run: docs/decisions/companies-and-invites.md.)
        if (err instanceof WorkflowNotFoundError) {
          throw new AppError('SERVICE_UNAVAILABLE', { message: `the run of company ${companyId} has not started yet` });
        }
        throw err;
      }
    },

    async readinessChanged(companyId, gate) {
      try {
        await client.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () => handle(companyId).signal(readinessChangedSignal, { gate }));
      } catch (err) {
        // The change is committed; the run recomputes readiness from the database at the next signal.
        logger.warn({ err, companyId, gate }, 'readiness signal not delivered to the company run');
      }
    },
  };
}

/**
 * What makes a status action unique: the action, the state of the company it applies to (after its n-th
 * status change: statusAndChanges), who takes it and their reason (not the ip or user agent, which a retry
 * may change). A company already where the action leads may have got there by this very request, its
 * answer lost (SERVICE_UNAVAILABLE): it names the state before that change, so the retry finds that
 * request's expired lease and joins its update. A repeat after an answer finds no lease (it ended with
 * the answer) and is a new update, which the run refuses (no action leads where it starts). The same
 * request on a later state (suspend, reactivate, suspend) is another action: a late retry never joins
 * an update made on an earlier state.
 */
async function statusActionKey(db: Sql, companyId: string, request: StatusChangeRequest): Promise<ActionKey> {
  const state = await statusAndChanges(db, companyId);
  if (!state) throw new AppError('COMPANY_NOT_FOUND');
  const arrived = COMPANY_TRANSITIONS[request.action].to === state.status;
  const changes = arrived ? Math.max(state.changes - 1, 0) : state.changes;
  return {
    action: `changeStatus:${request.action}`,
    appliesTo: `${companyId}@${changes}`,
    body: { actor: request.actorUserId, reason: request.reason },
  };
}
