// Telemetry across Temporal: one trace and one request id from the API request into the run it
// starts and that run's activities.
//
// - Clients (connectTemporal): Temporal's OpenTelemetry client interceptor (tracing on) puts the active
//   trace context in the start's (signal's, update's) headers; ours adds the request id
//   (REQUEST_ID_HEADER) to the headers and the memo of a start.
// - Workflows (the worker's workflowModules, bundled): Temporal's OpenTelemetry workflow interceptors
//   make the run's spans, exported through the `exporter` sink into the process's span processor
//   (workflowSinks); ours (workflows/request-context.ts) keeps the request id and hands it to each activity.
// - Activities: Temporal's OpenTelemetry interceptors (tracing on) run each activity in a span under the
//   run's; ours runs it in the request's async context (src/telemetry/context.ts) and adds `requestId`,
//   `traceId` and `spanId` to the activity's log lines.
//
// Temporal's interceptors are those of @temporalio/interceptors-opentelemetry-v2, built on the same
// OpenTelemetry SDK line as ours (2.x), so the workflow spans join our processor as they are.
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Headers, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/common';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry-v2';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import type pino from 'pino';
import { REQUEST_ID_HEADER } from '../../workflows/contracts/request-context-contract';
import { currentRequestId, logFields, runInRequest } from './context';
import { activeTracing, type Tracing } from './tracing';

export { REQUEST_ID_HEADER };

/** Temporal's OpenTelemetry workflow interceptors: they make the runs' spans, sent out through the `exporter` sink. */
const OTEL_WORKFLOW_INTERCEPTORS = require.resolve('@temporalio/interceptors-opentelemetry-v2/lib/workflow-interceptors');

/**
 * The workflow interceptor modules the worker bundles with the workflows: ours, and Temporal's OpenTelemetry
 * ones when the runs' spans go somewhere. A prebuilt bundle (src/cli/bundle-workflows.ts) has both, so the
 * image serves with tracing on or off; the worker then always injects the sink (workflowSinks).
 */
export function workflowInterceptorModules(tracing: Tracing | undefined = activeTracing()): string[] {
  return [require.resolve('../../workflows/request-context'), ...(tracing ? [OTEL_WORKFLOW_INTERCEPTORS] : [])];
}

/** What a prebuilt bundle is given: every module, whatever the process that bundles it traces. */
export const BUNDLED_WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../../workflows/request-context'), OTEL_WORKFLOW_INTERCEPTORS];

const requestHeader = (requestId: string): Headers => ({ [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) });

/** Adds the current request's id to a start's headers and memo (the memo shows it in the Temporal UI). */
function withRequest<T extends { headers: Headers; options: { memo?: Record<string, unknown> } }>(input: T): T {
  const requestId = currentRequestId();
  if (requestId === undefined) return input;
  return {
    ...input,
    headers: { ...input.headers, ...requestHeader(requestId) },
    options: { ...input.options, memo: { ...input.options.memo, requestId } },
  };
}

const requestIdInterceptor: WorkflowClientInterceptor = {
  start: (input, next) => next(withRequest(input)),
  startWithDetails: (input, next) => next(withRequest(input)),
  signalWithStart: (input, next) => next(withRequest(input)),
  startUpdateWithStart: (input, next) => {
    const requestId = currentRequestId();
    if (requestId === undefined) return next(input);
    return next({
      ...input,
      workflowStartHeaders: { ...input.workflowStartHeaders, ...requestHeader(requestId) },
      workflowStartOptions: { ...input.workflowStartOptions, memo: { ...input.workflowStartOptions.memo, requestId } },
    });
  },
};

/** Every Temporal client's interceptors (src/temporal/connection.ts): the trace's only while tracing is on. */
export function temporalClientInterceptors(tracing: Tracing | undefined = activeTracing()): ClientInterceptors {
  return { workflow: [...(tracing ? [new OpenTelemetryWorkflowClientInterceptor()] : []), requestIdInterceptor] };
}

/** The request's context around an activity, and its fields on the activity's log lines. */
const requestContextInterceptors: ActivityInterceptorsFactory = () => ({
  inbound: {
    execute(input, next) {
      const payload = input.headers[REQUEST_ID_HEADER];
      const requestId: unknown = payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
      return typeof requestId === 'string' ? runInRequest(requestId, () => next(input)) : next(input);
    },
  },
  outbound: {
    getLogAttributes: (input, next) => next({ ...logFields(), ...input }),
  },
});

/** The worker's activity interceptors: the span first (tracing on), then the request context inside it. */
export function activityInterceptors(tracing: Tracing | undefined = activeTracing()): ActivityInterceptorsFactory[] {
  const span: ActivityInterceptorsFactory = (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) });
  return [...(tracing ? [span] : []), requestContextInterceptors];
}

/**
 * The workflow spans' sink: into the process's span processor, or nowhere while tracing is off (a
 * prebuilt bundle's runs make spans either way).
 */
export function workflowSinks(tracing: Tracing | undefined = activeTracing()): InjectedSinks<Sinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  return { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) };
}

/** OpenTelemetry's log attribute names (Temporal's workflow interceptors) and ours; trace_flags is dropped. */
const OTEL_LOG_KEYS: Array<[string, string | undefined]> = [
  ['trace_id', 'traceId'],
  ['span_id', 'spanId'],
  ['trace_flags', undefined],
];

/**
 * The SDK's logger (Runtime.install): workflow and activity lines at the process's level (they are
 * the app's own lines, and carry `requestId`/`traceId` from the interceptors), the SDK's and core's
 * own lines at `sdkLevel` (they are chatty below warnings). OpenTelemetry's `trace_id`/`span_id`
 * (workflow lines) are spelled as ours.
 */
export function temporalRuntimeLogger(logger: pino.Logger, sdkLevel: pino.Level = 'warn'): TemporalLogger {
  const levels: Record<LogLevel, pino.Level> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
  const sdk = logger.child({ component: 'temporal-sdk' }, { level: sdkLevel });
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fields: Record<string, unknown> = { ...meta };
    for (const [theirs, ours] of OTEL_LOG_KEYS) {
      if (fields[theirs] !== undefined && ours) fields[ours] = fields[theirs];
      delete fields[theirs];
    }
    const own = fields.sdkComponent === 'workflow' || fields.sdkComponent === 'activity';
    (own ? logger : sdk)[levels[level]](fields, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
