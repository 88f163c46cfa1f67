// Smoke tests of the Temporal test harness itself: both offline servers start, a worker
// runs workflows on them, time skipping skips, and the dev server has visibility.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { echoWorkflow, sleepWorkflow } from '../fixtures/sleep-workflow';
import { bundleWorkflows, createLocalEnv, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';

const FIXTURE_WORKFLOWS = require.resolve('../fixtures/sleep-workflow');
const DAY_MS = 24 * 60 * 60 * 1000;

jest.setTimeout(60_000);

let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  bundle = await bundleWorkflows(FIXTURE_WORKFLOWS);
});

describe('time-skipping test server', () => {
  let env: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });

  afterAll(async () => {
    await env?.teardown();
  });

  it('runs a 24-hour sleep in seconds of wall time', async () => {
    const testEnv = env!;
    expect(testEnv.supportsTimeSkipping).toBe(true);
    const taskQueue = uniqueTaskQueue('harness-ts');
    const worker = await Worker.create({
      connection: testEnv.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      dataConverter: testDataConverter,
    });

    const serverTimeBefore = await testEnv.currentTimeMs();
    const wallStart = Date.now();
    const result = await worker.runUntil(
      testEnv.client.workflow.execute<typeof sleepWorkflow>('sleepWorkflow', {
        taskQueue,
        workflowId: `harness-sleep-${taskQueue}`,
        args: ['harness'],
      }),
    );
    const wallMs = Date.now() - wallStart;
    const serverTimeAfter = await testEnv.currentTimeMs();

    expect(result.greeting).toBe('good morning, harness');
    expect(result.finishedAt - result.startedAt).toBeGreaterThanOrEqual(DAY_MS);
    expect(serverTimeAfter - serverTimeBefore).toBeGreaterThanOrEqual(DAY_MS);
    expect(wallMs).toBeLessThan(30_000);
  });
});

describe('local dev server', () => {
  let env: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    env = await createLocalEnv();
  });

  afterAll(async () => {
    await env?.teardown();
  });

  it('runs a workflow and lists it through visibility', async () => {
    const testEnv = env!;
    expect(testEnv.supportsTimeSkipping).toBe(false);
    const taskQueue = uniqueTaskQueue('harness-local');
    const workflowId = `harness-echo-${taskQueue}`;
    const worker = await Worker.create({
      connection: testEnv.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      dataConverter: testDataConverter,
    });

    const result = await worker.runUntil(
      testEnv.client.workflow.execute<typeof echoWorkflow>('echoWorkflow', {
        taskQueue,
        workflowId,
        args: ['hello'],
      }),
    );
    expect(result).toBe('hello');

    const description = await testEnv.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.type).toBe('echoWorkflow');

    // Visibility is eventually consistent: poll briefly.
    let listed: string[] = [];
    for (let attempt = 0; attempt < 50 && listed.length === 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      listed = [];
      for await (const execution of testEnv.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
        if (execution.status.name === 'COMPLETED') listed.push(execution.workflowId);
      }
    }
    expect(listed).toEqual([workflowId]);
  });
});
