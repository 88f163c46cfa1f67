import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowNotFoundError } from '@temporalio/common';
import type { Logger } from 'pino';
import type { CompanyRuns } from '../companies/runs';
import type { Config } from '../config';
import { AppError } from '../http/errors';
import { createLogger } from '../http/logger';
import { companyOnboardingWorkflow } from '../../workflows/company-onboarding';
import { changeStatusUpdate, companyWorkflowId, readinessChangedSignal, type CompanyWorkflowInput } from '../../workflows/company-contract';
import { START_DEADLINE_MS } from './connection';
import { SEARCH_ATTRIBUTES } from './search-attributes';
import { executeUpdate } from './update';

export type CompanyRunsConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_SEARCH_ATTRIBUTES' | 'LOG_LEVEL'>;

/** A readiness signal is a hint (the run recomputes from the database): it never holds a request up for long. */
const SIGNAL_DEADLINE_MS = 5_000;

/**
 * The CompanyRuns port on a Temporal client. Id policies, chosen on purpose: the run is started once,
 * from the registration's pending start (by the API at once or by the start relay), with
 * REJECT_DUPLICATE + USE_EXISTING, so a start that finds the company's run (running, or closed by an
 * operator) counts as started and never opens a second one.
 */
export function createCompanyRuns(
  client: Client,
  config: CompanyRunsConfig,
  opts: { logger?: Pick<Logger, 'warn'>; startDeadlineMs?: number } = {},
): CompanyRuns {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const startDeadlineMs = opts.startDeadlineMs ?? START_DEADLINE_MS;
  const handle = (companyId: string) => client.workflow.getHandle(companyWorkflowId(companyId));

  return {
    async start(companyId) {
      const input: CompanyWorkflowInput = { companyId, status: 'pending' };
      try {
        await client.withDeadline(Date.now() + startDeadlineMs, () =>
          client.workflow.start(companyOnboardingWorkflow, {
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
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },

    async changeStatus(companyId, request) {
      // Made here, per call, never from the client (X-Request-Id): the run answers a repeated id from memory,
      // writing nothing. The status table keeps a repeated action from applying twice; the SDK resends this id on retry.
      const updateId = `changeStatus:${request.action}:${randomUUID()}`;
      try {
        return await executeUpdate(handle(companyId), changeStatusUpdate, { args: [request], updateId });
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
