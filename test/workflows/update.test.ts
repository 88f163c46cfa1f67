// The API's workflow-update helper (src/temporal/update.ts) against a real server: a refusal with
// a spec code becomes that AppError (details included), other failures pass through, and an update
// no worker takes ends at its deadline as SERVICE_UNAVAILABLE instead of hanging. An action's update
// id is derived from the action (executeAction): a repeated request joins the first's result, a
// different one is its own update, and a failed one is judged anew.
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { AppError } from '../../src/http/errors';
import { createActivationRuns } from '../../src/temporal/activations';
import { actionUpdateId, executeAction, executeUpdate, type ActionKey } from '../../src/temporal/update';
import { verifyByUpdate } from '../helpers/activations';
import { IDENTITY_ERROR } from '../../workflows/activation-contract';
import { closeSignal, statusWorkflow, transitionUpdate, type Action } from './fixtures/update-workflows';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('./fixtures/update-workflows'))]);
});
afterAll(() => env?.teardown());

/** Starts a status workflow (on `taskQueue`, default a fresh one) and drives it while a worker runs, then closes it. */
async function withStatusWorkflow(
  drive: (handle: WorkflowHandle<typeof statusWorkflow>) => Promise<void>,
  taskQueue = uniqueTaskQueue('update'),
  started?: WorkflowHandle<typeof statusWorkflow>,
): Promise<void> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
  });
  await worker.runUntil(async () => {
    const handle = started ?? (await env.client.workflow.start(statusWorkflow, { taskQueue, workflowId: `company:${randomUUID()}` }));
    await drive(handle);
    await handle.signal(closeSignal);
    await handle.result();
  });
}

/** The ids of the updates the run accepted (entered its history), oldest first. */
async function acceptedUpdateIds(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => {
    const id = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    return id ? [id] : [];
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

describe('actionUpdateId', () => {
  const key: ActionKey = { action: 'counter', appliesTo: 'v1', body: { actor: 'u1', items: [{ packageId: 'p', qty: 2 }], note: null } };

  it('is the action, what it applies to and a short digest of the body, whatever order the body has its keys in', () => {
    const id = actionUpdateId(key);
    expect(id).toMatch(/^counter:v1:[0-9a-f]{16}$/);
    expect(actionUpdateId({ ...key, body: { note: null, items: [{ qty: 2, packageId: 'p' }], actor: 'u1' } })).toBe(id);
  });

  it('differs when the action, the state it applies to, who acts or what they send differs', () => {
    const others: ActionKey[] = [
      { ...key, action: 'reject' },
      { ...key, appliesTo: 'v2' },
      { ...key, body: { actor: 'u2', items: [{ packageId: 'p', qty: 2 }], note: null } },
      { ...key, body: { actor: 'u1', items: [{ packageId: 'p', qty: 3 }], note: null } },
      { ...key, body: { actor: 'u1', items: [{ packageId: 'p', qty: 2 }], note: 'cheaper' } },
    ];
    expect(new Set([key, ...others].map(actionUpdateId)).size).toBe(others.length + 1);
  });
});

describe('executeAction', () => {
  const keyOf = (action: Action, reason: string | null = null): ActionKey => ({ action, appliesTo: 'company-1@0', body: { reason } });
  const act = (handle: WorkflowHandle, action: Action, reason: string | null = null, deadlineMs?: number) =>
    executeAction(handle, transitionUpdate, { args: [{ action }], key: keyOf(action, reason), deadlineMs });

  it('answers a repeated request (its answer lost) with the first one’s result, applied once', async () => {
    await withStatusWorkflow(async (handle) => {
      expect(await act(handle, 'approve')).toBe('approved');
      // Sent as a new update this would be refused: an approved company cannot be approved.
      expect(await act(handle, 'approve')).toBe('approved');
      expect(await acceptedUpdateIds(handle)).toEqual([actionUpdateId(keyOf('approve'))]);
    });
  });

  it('sends a different request for the same state as its own update: the workflow refuses it', async () => {
    await withStatusWorkflow(async (handle) => {
      expect(await act(handle, 'approve', 'papers in order')).toBe('approved');
      const err = await caught(act(handle, 'approve', 'another reason'));
      expect(err).toMatchObject({ code: 'COMPANY_INVALID_TRANSITION', details: { from: 'approved', action: 'approve' } });
      expect(await acceptedUpdateIds(handle)).toHaveLength(1);
    });
  });

  it('judges a request whose update failed anew when it is repeated (the next id), and answers later repeats with that', async () => {
    await withStatusWorkflow(async (handle) => {
      const err = await caught(act(handle, 'flaky'));
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(err).toMatchObject({ cause: { type: 'Flaky' } });
      expect(await act(handle, 'flaky')).toBe('approved');
      expect(await act(handle, 'flaky')).toBe('approved');
      const id = actionUpdateId(keyOf('flaky'));
      expect(await acceptedUpdateIds(handle)).toEqual([id, `${id}#1`]);
    });
  });

  it('answers SERVICE_UNAVAILABLE while no worker takes the update; the repeat, once one does, gets the one result', async () => {
    const taskQueue = uniqueTaskQueue('no-worker-yet');
    const handle = await env.client.workflow.start(statusWorkflow, { taskQueue, workflowId: `company:${randomUUID()}` });
    expect(await caught(act(handle, 'approve', null, 500))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await withStatusWorkflow(
      async () => {
        expect(await act(handle, 'approve')).toBe('approved');
        expect(await acceptedUpdateIds(handle)).toEqual([actionUpdateId(keyOf('approve'))]);
      },
      taskQueue,
      handle,
    );
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
