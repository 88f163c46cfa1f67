// The API's workflow-update helper (src/temporal/update.ts) against a real server: a refusal with
// a spec code becomes that AppError (details included), other failures pass through, and an update
// no worker takes ends at its deadline as SERVICE_UNAVAILABLE instead of hanging.
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { AppError } from '../../src/http/errors';
import { createActivationRuns } from '../../src/temporal/activations';
import { executeUpdate } from '../../src/temporal/update';
import { verifyByUpdate } from '../helpers/activations';
import { IDENTITY_ERROR } from '../../workflows/activation-contract';
import { closeSignal, statusWorkflow, transitionUpdate } from './fixtures/update-workflows';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('./fixtures/update-workflows'))]);
});
afterAll(() => env?.teardown());

/** Starts a status workflow and drives it while a worker runs, then closes it. */
async function withStatusWorkflow(drive: (handle: WorkflowHandle<typeof statusWorkflow>) => Promise<void>): Promise<void> {
  const taskQueue = uniqueTaskQueue('update');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
  });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(statusWorkflow, { taskQueue, workflowId: `company:${randomUUID()}` });
    await drive(handle);
    await handle.signal(closeSignal);
    await handle.result();
  });
}

const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('executeUpdate', () => {
  it("returns the update's result", async () => {
    await withStatusWorkflow(async (handle) => {
      expect(await executeUpdate(handle, transitionUpdate, { args: [{ action: 'approve' }] })).toBe('approved');
    });
  });

  it('turns a refusal whose type is a spec code into that AppError, with the details the workflow gave', async () => {
    await withStatusWorkflow(async (handle) => {
      await executeUpdate(handle, transitionUpdate, { args: [{ action: 'reject' }] });
      const err = await caught(executeUpdate(handle, transitionUpdate, { args: [{ action: 'approve' }] }));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'COMPANY_INVALID_TRANSITION', details: { from: 'rejected', action: 'approve' } });
    });
  });

  it('lets a failure whose type is not a spec code pass through', async () => {
    await withStatusWorkflow(async (handle) => {
      const err = await caught(executeUpdate(handle, transitionUpdate, { args: [{ action: 'explode' }] }));
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(err).toMatchObject({ cause: { type: 'Exploded', message: 'boom' } });
    });
  });

  it('answers SERVICE_UNAVAILABLE once the deadline passes while no worker takes the update', async () => {
    const handle = await env.client.workflow.start(statusWorkflow, {
      taskQueue: uniqueTaskQueue('no-worker'),
      workflowId: `company:${randomUUID()}`,
    });
    const startedAt = Date.now();
    const err = await caught(executeUpdate(handle, transitionUpdate, { args: [{ action: 'approve' }], deadlineMs: 500 }));
    const elapsedMs = Date.now() - startedAt;
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // A Node timer may fire a millisecond or two early by Date.now(); the upper bound allows a busy machine.
    expect(elapsedMs).toBeGreaterThanOrEqual(480);
    expect(elapsedMs).toBeLessThan(10_000);
    await handle.terminate();
  });
});

describe("the activation workflow's verifyIdentity update (an API of the previous release)", () => {
  it('answers AppError IDENTITY_ERROR when the workflow refuses (the provider would not start a verification)', async () => {
    const taskQueue = uniqueTaskQueue('activation-update');
    const activities: Partial<Activities> = {
      initiateIdentity: () => Promise.reject(ApplicationFailure.nonRetryable('identity provider refused', IDENTITY_ERROR)),
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      dataConverter: testDataConverter,
      activities,
    });
    const workflows = createActivationRuns(env.client, {
      TEMPORAL_TASK_QUEUE: taskQueue,
      ACTIVATION_CANCEL_AFTER_SECONDS: 86_400,
      IDENTITY_POLL_INTERVAL_SECONDS: 5,
      IDENTITY_REQUEST_TTL_SECONDS: 300,
      ACTIVATION_PAID_CHECK_SECONDS: 300,
      TEMPORAL_SEARCH_ATTRIBUTES: false,
    });
    const activationId = randomUUID();
    await worker.runUntil(async () => {
      await workflows.start({ activationId, userId: randomUUID(), orderId: randomUUID(), simType: 'physical' });
      const err = await caught(verifyByUpdate(env.client, activationId, { identityType: 'citizen', idNumber: '1234567894' }));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'IDENTITY_ERROR', message: 'identity provider refused', details: undefined });
    });
  });
});
