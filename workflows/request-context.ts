// Workflow interceptors (bundled into the workflow sandbox through the worker's workflowModules, see
// src/telemetry/temporal.ts): the run keeps the request id its start carried (REQUEST_ID_HEADER) and
// hands it to every activity and child run it schedules, so their log lines name the request that
// started the run; the run's own log lines carry it too. Signals and updates sent later by other
// requests do not change it: a run belongs to the request that started it.
import { defaultPayloadConverter, type Headers, type WorkflowInterceptors } from '@temporalio/workflow';
import { REQUEST_ID_HEADER } from './contracts/request-context-contract';

function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[REQUEST_ID_HEADER];
  if (!payload) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(payload);
  return typeof value === 'string' ? value : undefined;
}

/** Called once per run: the id lives in this closure, one per workflow execution. */
export const interceptors = (): WorkflowInterceptors => {
  let requestId: string | undefined;
  const carry = <T extends { readonly headers: Headers }>(input: T): T =>
    requestId === undefined || input.headers[REQUEST_ID_HEADER]
      ? input
      : { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) } };
  return {
    inbound: [
      {
        execute(input, next) {
          requestId = requestIdOf(input.headers);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(carry(input)),
        scheduleLocalActivity: (input, next) => next(carry(input)),
        startChildWorkflowExecution: (input, next) => next(carry(input)),
        continueAsNew: (input, next) => next(carry(input)),
        getLogAttributes: (input, next) => next(requestId === undefined ? input : { requestId, ...input }),
      },
    ],
  };
};
