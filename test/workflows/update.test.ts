// The API's workflow-update helper (src/temporal/update.ts) against a real server: a refusal with
// a spec code becomes that AppError (details included), other failures pass through, and an update
// no worker takes ends at its deadline as SERVICE_UNAVAILABLE instead of hanging. An action
// (executeAction) takes a lease on its derived id: a retry after SERVICE_UNAVAILABLE, or after its
// process died, joins the first update; a repeat after an answer, or a twin in flight, is judged afresh.
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { AppError } from '../../src/http/errors';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { actionDerivedId, executeAction, executeUpdate, type ActionKey } from '../../src/temporal/update';
import { verifyByUpdate } from '../helpers/activations';
import { IDENTITY_ERROR } from '../../workflows/contracts/activation-contract';
import { closeSignal, statusWorkflow, transitionUpdate, type Action } from './fixtures/update-workflows';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
/** Where executeAction takes its leases. */
let db: TestDatabase;
beforeAll(async () => {
  [env, bundle, db] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('./fixtures/update-workflows')),
    createTestDatabase(),
  ]);
});
afterAll(async () => {
  await env?.teardown();
  await db?.drop();
});

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

describe('actionDerivedId', () => {
  const key: ActionKey = { action: 'counter', appliesTo: 'v1', body: { actor: 'u1', items: [{ packageId: 'p', qty: 2 }], note: null } };

  it('is the action, what it applies to and a short digest of the body, whatever order the body has its keys in', () => {
    const id = actionDerivedId(key);
    expect(id).toMatch(/^counter:v1:[0-9a-f]{16}$/);
    expect(actionDerivedId({ ...key, body: { note: null, items: [{ qty: 2, packageId: 'p' }], actor: 'u1' } })).toBe(id);
  });

  it('differs when the action, the state it applies to, who acts or what they send differs', () => {
    const others: ActionKey[] = [
      { ...key, action: 'reject' },
      { ...key, appliesTo: 'v2' },
      { ...key, body: { actor: 'u2', items: [{ packageId: 'p', qty: 2 }], note: null } },
      { ...key, body: { actor: 'u1', items: [{ packageId: 'p', qty: 3 }], note: null } },
      { ...key, body: { actor: 'u1', items: [{ packageId: 'p', qty: 2 }], note: 'cheaper' } },
    ];
    expect(new Set([key, ...others].map(actionDerivedId)).size).toBe(others.length + 1);
  });
});

describe('executeAction', () => {
  const keyOf = (action: Action): ActionKey => ({ action, appliesTo: `company-${randomUUID()}@0`, body: { reason: null } });
  const act = (handle: WorkflowHandle, key: ActionKey, deadlineMs?: number) =>
    executeAction(handle, transitionUpdate, { args: [{ action: key.action as Action }], key, db: db.sql, deadlineMs });
  const leases = (key: ActionKey) =>
    db.query<{ updateId: string; expired: boolean }>(
      'select update_id as "updateId", expires_at <= now() as expired from workflow_update_leases where derived_id = $1',
      [actionDerivedId(key)],
    );
  const anUpdateId = (key: ActionKey) => expect.stringMatching(new RegExp(`^${actionDerivedId(key)}:[0-9a-f-]{36}$`)) as unknown;

  it('retried after SERVICE_UNAVAILABLE (no worker took the update), the request gets the one result, applied once', async () => {
    const taskQueue = uniqueTaskQueue('no-worker-yet');
    const handle = await env.client.workflow.start(statusWorkflow, { taskQueue, workflowId: `company:${randomUUID()}` });
    const key = keyOf('approve');
    expect(await caught(act(handle, key, 500))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The outcome is unknown: the lease ended at once, so the retry takes it over.
    const [lease] = await leases(key);
    expect(lease).toEqual({ updateId: anUpdateId(key), expired: true });
    await withStatusWorkflow(
      async () => {
        expect(await act(handle, key)).toBe('approved');
        expect(await acceptedUpdateIds(handle)).toEqual([lease.updateId]);
      },
      taskQueue,
      handle,
    );
    expect(await leases(key)).toEqual([]);
  });

  it('repeated after an answer, the request is a new update, judged afresh: refused, applied once', async () => {
    await withStatusWorkflow(async (handle) => {
      const key = keyOf('approve');
      expect(await act(handle, key)).toBe('approved');
      expect(await leases(key)).toEqual([]);
      const err = await caught(act(handle, key));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'COMPANY_INVALID_TRANSITION', details: { from: 'approved', action: 'approve' } });
      expect(await acceptedUpdateIds(handle)).toEqual([anUpdateId(key)]);
    });
  });

  it('sent five times at once, the request applies once; the others are judged on their own and refused', async () => {
    await withStatusWorkflow(async (handle) => {
      const key = keyOf('approve');
      const results = await Promise.all(Array.from({ length: 5 }, () => act(handle, key).catch((err: unknown) => err)));
      expect(results.filter((r) => r === 'approved')).toHaveLength(1);
      expect(results.filter((r) => r instanceof AppError && r.code === 'COMPANY_INVALID_TRANSITION')).toHaveLength(4);
      expect(await acceptedUpdateIds(handle)).toEqual([anUpdateId(key)]);
      expect(await leases(key)).toEqual([]);
    });
  });

  it('retried after its process died mid-update (its lease expired unanswered), the request joins that update', async () => {
    await withStatusWorkflow(async (handle) => {
      const key = keyOf('approve');
      const updateId = `${actionDerivedId(key)}:${randomUUID()}`;
      // What the dead process left: its lease, expired, and its update, which the run has applied.
      await db.query(
        `insert into workflow_update_leases (derived_id, update_id, expires_at) values ($1, $2, now() - interval '1 second')`,
        [actionDerivedId(key), updateId],
      );
      expect(await handle.executeUpdate(transitionUpdate, { args: [{ action: 'approve' }], updateId })).toBe('approved');

      expect(await act(handle, key)).toBe('approved');
      expect(await acceptedUpdateIds(handle)).toEqual([updateId]);
      expect(await leases(key)).toEqual([]);
    });
  });

  it('sent while the same request holds a live lease, the request is not joined to it: the run judges it on its own', async () => {
    await withStatusWorkflow(async (handle) => {
      const key = keyOf('approve');
      const inFlight = `${actionDerivedId(key)}:${randomUUID()}`;
      await db.query(
        `insert into workflow_update_leases (derived_id, update_id, expires_at) values ($1, $2, now() + interval '1 minute')`,
        [actionDerivedId(key), inFlight],
      );
      expect(await act(handle, key)).toBe('approved');
      const [accepted] = await acceptedUpdateIds(handle);
      expect(accepted).toEqual(anUpdateId(key));
      expect(accepted).not.toBe(inFlight);
      // The lease is the other request's: left as it was.
      expect(await leases(key)).toEqual([{ updateId: inFlight, expired: false }]);
    });
  });

  it('repeated after its update failed, the request is judged anew', async () => {
    await withStatusWorkflow(async (handle) => {
      const key = keyOf('flaky');
      const err = await caught(act(handle, key));
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(err).toMatchObject({ cause: { type: 'Flaky' } });
      expect(await leases(key)).toEqual([]);
      expect(await act(handle, key)).toBe('approved');
      const ids = await acceptedUpdateIds(handle);
      expect(ids).toEqual([anUpdateId(key), anUpdateId(key)]);
      expect(new Set(ids).size).toBe(2);
    });
  });

  it('clears leases left behind more than a day ago when a lease is released', async () => {
    const stale = `stale:${randomUUID()}`;
    await db.query(`insert into workflow_update_leases (derived_id, update_id, expires_at) values ($1, $1, now() - interval '25 hours')`, [
      stale,
    ]);
    await withStatusWorkflow(async (handle) => {
      expect(await act(handle, keyOf('approve'))).toBe('approved');
    });
    expect(await db.query('select 1 from workflow_update_leases where derived_id = $1', [stale])).toEqual([]);
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
