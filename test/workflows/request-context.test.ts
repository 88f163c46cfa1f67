/**
 * Issue 22: "Temporal's OpenTelemetry interceptors so one trace follows a request into its workflow
 * and activities ... The request id (and trace id) on every log line through async context,
 * including activity logs." A run started while a request runs (its request context and its span
 * active, as the API's request logger and HTTP instrumentation leave them) through a client with the
 * service's interceptors, on a worker with the service's activity and workflow interceptors and the
 * SDK logger the worker installs: the activity's log line names that request and that trace, the
 * run's memo names the request, and the run's and the activity's spans join the request's trace.
 */
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { log as activityLog } from '@temporalio/activity';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import { createLogger } from '../../src/http/logger';
import { runInRequest } from '../../src/telemetry/context';
import { startTelemetry, type Telemetry } from '../../src/telemetry/start';
import {
  activityInterceptors,
  temporalClientInterceptors,
  temporalRuntimeLogger,
  workflowInterceptorModules,
  workflowSinks,
} from '../../src/telemetry/temporal';
import type { noteWorkflow } from '../fixtures/request-context-workflow';
import { bundleWorkflows, createTimeSkippingEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

const lines: string[] = [];
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  // The worker's SDK logger (worker/main.ts installs the same), writing to `lines`; installed before
  // the test environment's, which then keeps it.
  Runtime.install({ logger: temporalRuntimeLogger(createLogger('info', { write: (line: string) => void lines.push(line) })) });
  // The process's telemetry as the worker starts it, its spans kept here (the request instrumentations are not needed).
  telemetry = startTelemetry(
    {
      OTEL_SERVICE_NAME: 'request-context-test',
      OTEL_SDK_DISABLED: false,
      METRICS_ENABLED: false,
      METRICS_HOST: '127.0.0.1',
      METRICS_PATH: '/metrics',
    },
    'worker',
    { spanExporter: exporter, instrument: false, env: { OTEL_TRACES_SAMPLER: 'parentbased_always_on' } },
  );
  env = await createTimeSkippingEnv();
});

afterAll(async () => {
  await env?.teardown();
  await telemetry?.shutdown();
});

it("carries the request id and trace id of the request that started a run to its activity's log line", async () => {
  const taskQueue = uniqueTaskQueue('request-context');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../fixtures/request-context-workflow'), workflowInterceptorModules()),
    dataConverter: testDataConverter,
    activities: {
      // eslint-disable-next-line @typescript-eslint/require-await
      async note(step: string) {
        activityLog.info('activity ran', { step });
      },
    },
    interceptors: { activity: activityInterceptors() },
    sinks: workflowSinks(),
  });
  const client = new Client({ connection: env.connection, dataConverter: testDataConverter, interceptors: temporalClientInterceptors() });
  const requestId = `req-${randomUUID()}`;
  const workflowId = `note-${randomUUID()}`;

  const requestTraceId = await worker.runUntil(async () => {
    // As in the API: the request's context, and the request's span (the HTTP instrumentation's) active.
    const traceId = await runInRequest(requestId, () =>
      trace.getTracer('test').startActiveSpan('POST /test', async (span) => {
        await client.workflow.start<typeof noteWorkflow>('noteWorkflow', { taskQueue, workflowId, args: ['one'] });
        span.end();
        return span.spanContext().traceId;
      }),
    );
    // Awaited outside the request: the activity's context comes from the run's headers, not from here.
    await client.workflow.getHandle(workflowId).result();
    return traceId;
  });

  const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const activityLine = entries.find((e) => e.msg === 'activity ran');
  expect(activityLine).toMatchObject({
    step: 'one',
    requestId,
    traceId: requestTraceId,
    spanId: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
    sdkComponent: 'activity',
    workflowId,
  });
  // The run's own line names the request and the trace too.
  expect(entries.find((e) => e.msg === 'run started')).toMatchObject({ requestId, traceId: requestTraceId, sdkComponent: 'workflow' });
  // The memo shows the request in the Temporal UI.
  expect((await client.workflow.getHandle(workflowId).describe()).memo).toEqual({ requestId });

  // The spans: the client's start, the run, the activity, all in the request's trace, each under its parent.
  await telemetry.tracing!.processor.forceFlush();
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === requestTraceId);
  const byName = (prefix: string) => spans.find((s) => s.name.startsWith(prefix));
  const request = byName('POST /test');
  const start = byName('StartWorkflow:noteWorkflow');
  const run = byName('RunWorkflow:noteWorkflow');
  const schedule = byName('StartActivity:note');
  const activity = byName('RunActivity:note');
  expect([request, start, run, schedule, activity].map((s) => s?.name)).toEqual([
    'POST /test',
    'StartWorkflow:noteWorkflow',
    'RunWorkflow:noteWorkflow',
    'StartActivity:note',
    'RunActivity:note',
  ]);
  expect(start!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
  expect(run!.parentSpanContext?.spanId).toBe(start!.spanContext().spanId);
  expect(schedule!.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
  expect(activity!.parentSpanContext?.spanId).toBe(schedule!.spanContext().spanId);
  expect(activityLine!.spanId).toBe(activity!.spanContext().spanId);
});
