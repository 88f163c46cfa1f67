// Telemetry across Temporal: one trace and one request id from the API request into the run it
// starts and that run's activities.
//
// - Clients (connectTemporal): Temporal's OpenTelemetry client interceptor puts the active trace
//   context in the start's (signal's, update's) headers; ours adds the request id (REQUEST_ID_HEADER)
//   to the headers and the memo of a start.
// - Workflows (the worker's workflowModules, bundled): Temporal's OpenTelemetry workflow interceptors
//   make the run's spans, exported through the `exporter` sink (workflowSinks); ours
//   (workflows/request-context.ts) keeps the request id and hands it to each activity.
// - Activities: Temporal's OpenTelemetry inbound interceptor runs each activity in a span under the
//   run's; ours runs it in the request's async context (src/telemetry/context.ts) and adds
//   `requestId`, `traceId` and `spanId` to the activity's log lines.
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Headers, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/common';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type pino from 'pino';
import { REQUEST_ID_HEADER } from '../../workflows/request-context-contract';
import { currentRequestId, logFields, runInRequest } from './context';

export { REQUEST_ID_HEADER };

/**
 * The workflow interceptor modules the worker bundles with the workflows: ours and Temporal's
 * OpenTelemetry ones. A prebuilt bundle (bundleWorkflowCode) must be given the same list.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  require.resolve('../../workflows/request-context'),
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

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

/** Every Temporal client's interceptors (src/temporal/connection.ts). */
export function temporalClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor(), requestIdInterceptor] };
}

/** The worker's activity interceptors: the span first, then the request context inside it. */
export const ACTIVITY_INTERCEPTORS: ActivityInterceptorsFactory[] = [
  (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) }),
  () => ({
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
  }),
];

/**
 * The workflow spans' sink. Temporal's workflow interceptors build spans with OpenTelemetry's 1.x
 * SDK inside the sandbox (`parentSpanId`, `instrumentationLibrary`); our exporter reads the 3.x shape
 * (`parentSpanContext`, `instrumentationScope`), so each span is reshaped before it joins our
 * processor (without it the exporter would drop the parent and fail on the scope).
 */
export function workflowSinks(tracing: { processor: SpanProcessor; resource: Resource } | undefined): InjectedSinks<Sinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  const { processor } = tracing;
  const reshaping = {
    onStart: () => undefined,
    onEnd: (span: WorkflowSpan) => processor.onEnd(toReadableSpan(span)),
    forceFlush: () => processor.forceFlush(),
    shutdown: () => Promise.resolve(),
  };
  type Processor = Parameters<typeof makeWorkflowExporter>[0];
  type SinkResource = Parameters<typeof makeWorkflowExporter>[1];
  return { exporter: makeWorkflowExporter(reshaping as unknown as Processor, tracing.resource as unknown as SinkResource) };
}

type WorkflowSpan = Omit<ReadableSpan, 'parentSpanContext' | 'instrumentationScope'> & {
  parentSpanId?: string;
  instrumentationLibrary?: ReadableSpan['instrumentationScope'];
};

function toReadableSpan(span: WorkflowSpan): ReadableSpan {
  const own = span.spanContext();
  const { parentSpanId, instrumentationLibrary, ...rest } = span;
  return {
    ...rest,
    spanContext: () => own,
    parentSpanContext: parentSpanId ? { traceId: own.traceId, spanId: parentSpanId, traceFlags: own.traceFlags } : undefined,
    instrumentationScope: instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' },
  };
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
