import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { IdentityProviderUnavailable, type IdentityProvider } from '../../src/identity/provider';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  ACTIVATION_END_REASONS,
  IDENTITY_PROVIDER_UNAVAILABLE,
  verifyIdentityUpdate,
  type ActivationTimers,
  type ActivationWorkflowInput,
} from '../../workflows/contracts/activation-contract';
import { activationRow, orderStatus, payOrder } from '../helpers/activations';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

// Issue 11, "Stranded runs and money", first case: an identity-provider outage never kills an
// activation, and a run never ends without a final status (which frees its serial and its SIM slot).
// Real activities on Postgres, a controllable identity provider, the time-skipping server.
jest.setTimeout(120_000);

const TIMERS: ActivationTimers = {
  cancelAfterMs: 24 * 3600_000,
  identityPollIntervalMs: 5_000,
  identityRequestTtlMs: 300_000,
  // The lost-signal safety net stays out of the way (these runs are unpaid or signalled).
  paidCheckIntervalMs: 48 * 3600_000,
};

/** The identity provider, per activation: `down` while an outage lasts, else it answers `completed`. */
const outage = { initiate: new Set<string>(), status: new Set<string>() };
let polls = 0;
const identity: IdentityProvider = {
  initiate({ reference }) {
    if (outage.initiate.has(reference)) return Promise.reject(new IdentityProviderUnavailable('identity provider unavailable (HTTP 503)'));
    return Promise.resolve({ transId: `tx.${reference}.${Date.now()}`, randomCode: '42' });
  },
  status(transId) {
    polls += 1;
    const activationId = transId.split('.')[1];
    if (outage.status.has(activationId)) return Promise.reject(new IdentityProviderUnavailable('identity provider unavailable (timeout)'));
    return Promise.resolve('completed');
  },
};

/** Activities that fail for good, for the activations named here (faults nobody expects). */
const sabotaged = { recordIdentityStatus: new Set<string>(), pollIdentity: new Set<string>() };
const broken = (what: string) => ApplicationFailure.nonRetryable(`${what}: relation "activations" is corrupted`, 'UnexpectedDatabaseState');

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: Worker;
let taskQueue: string;
let running: Promise<void>;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows')), createTestApp()]);
  await seedCatalog(t);
  taskQueue = uniqueTaskQueue('activation-outages');
  const real = realActivities(t.db, t.config, { identity });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities: {
      ...real,
      recordIdentityStatus: (input: Parameters<typeof real.recordIdentityStatus>[0]) =>
        sabotaged.recordIdentityStatus.has(input.activationId)
          ? Promise.reject(broken('recordIdentityStatus'))
          : real.recordIdentityStatus(input),
      pollIdentity: (input: Parameters<typeof real.pollIdentity>[0]) =>
        sabotaged.pollIdentity.has(input.transId.split('.')[1]) ? Promise.reject(broken('pollIdentity')) : real.pollIdentity(input),
    },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await t?.close();
});

async function start(activationId: string, timers: ActivationTimers = TIMERS) {
  return env.client.workflow.start(activationWorkflow, {
    taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [{ activationId, simType: 'physical', timers } satisfies ActivationWorkflowInput],
  });
}

const verify = (handle: WorkflowHandle, idNumber = '1234567890') =>
  handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType: 'citizen', idNumber }] });

const pay = (handle: WorkflowHandle, orderId: string) => payOrder(t.db, handle, orderId);

const activation = (id: string) => activationRow(t.db, id);
const order = (id: string) => orderStatus(t.db, id);
const runStatus = async (handle: WorkflowHandle) => (await handle.describe()).status.name;

/** The serial is free: another live activation of the same ICCID can be written (the live-serial unique index). */
async function expectSerialFree(userId: string, iccid: string) {
  await expect(insertActivation(t, { userId, iccid })).resolves.toMatchObject({ iccid });
}

describe('identity provider outages', () => {
  it('a polling outage is retried with backoff while the activation lives; when the provider is back it completes', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    outage.status.add(created.activationId);
    await verify(handle);
    const before = polls;
    await env.sleep(2 * 3600_000);

    // Two hours of outage: still pending and still asking, with backoff (not once per 5 s poll interval).
    expect(await runStatus(handle)).toBe('RUNNING');
    expect(await activation(created.activationId)).toMatchObject({ status: 'pending', identity_status: 'waiting' });
    expect(polls - before).toBeGreaterThan(3);
    expect(polls - before).toBeLessThan((2 * 3600) / 5 / 4);

    outage.status.delete(created.activationId);
    await pay(handle, created.orderId);
    expect(await handle.result()).toBe('activated');
    expect(await activation(created.activationId)).toMatchObject({ status: 'activated', identity_status: 'completed' });
  });

  it('an outage that outlasts the activation ends it `cancelled` at its deadline: order cancelled, serial free', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId, { ...TIMERS, cancelAfterMs: 3 * 3600_000 });
    outage.status.add(created.activationId);
    await verify(handle);

    expect(await handle.result()).toBe('cancelled');
    expect(await activation(created.activationId)).toEqual({
      status: 'cancelled',
      identity_status: 'waiting',
      failed_reason: ACTIVATION_END_REASONS.identityNotCompleted,
    });
    expect(await order(created.orderId)).toBe('cancelled');
    await expectSerialFree(userId, created.iccid);
  });

  it('initiation while the provider is down answers IDENTITY_ERROR at once (provider unavailable); the run lives on', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    outage.initiate.add(created.activationId);

    await expect(verify(handle)).rejects.toMatchObject({
      cause: { type: 'IDENTITY_ERROR', details: [{ reason: IDENTITY_PROVIDER_UNAVAILABLE }] },
    });
    // One short attempt, bounded well inside the API's 15 s wait for the answer.
    const history = await handle.fetchHistory();
    const initiations = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'initiateIdentity');
    expect(initiations).toHaveLength(1);
    expect(Number(initiations[0]!.scheduleToCloseTimeout?.seconds)).toBeLessThanOrEqual(12);
    expect(await runStatus(handle)).toBe('RUNNING');

    // The provider is back: the person tries again and the activation goes on.
    outage.initiate.delete(created.activationId);
    await expect(verify(handle)).resolves.toMatchObject({ status: 'waiting' });
    await pay(handle, created.orderId);
    expect(await handle.result()).toBe('activated');
  });

  it('a poll that fails for good ends that verification as `error`, not the activation; the person may verify again', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    sabotaged.pollIdentity.add(created.activationId);
    await verify(handle);
    await env.sleep(60_000);
    expect(await runStatus(handle)).toBe('RUNNING');
    expect(await activation(created.activationId)).toMatchObject({ status: 'pending', identity_status: 'error' });

    sabotaged.pollIdentity.delete(created.activationId);
    await verify(handle, '1234567899');
    await pay(handle, created.orderId);
    expect(await handle.result()).toBe('activated');
  });
});

describe('every run ends with a final status', () => {
  it('an unexpected activity failure records `failed` with a reason, cancels the unpaid order and frees the serial', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    sabotaged.recordIdentityStatus.add(created.activationId);
    await verify(handle);

    // The run still fails (visible in the UI with its cause), but only after writing the outcome.
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(await activation(created.activationId)).toMatchObject({ status: 'failed', failed_reason: ACTIVATION_END_REASONS.internalError });
    expect(await order(created.orderId)).toBe('cancelled');
    await expectSerialFree(userId, created.iccid);
  });

  it('a run cancelled from Temporal (support) records `cancelled` with a reason and cancels the unpaid order', async () => {
    const { userId } = await signUp(t);
    const created = await insertActivation(t, { userId });
    const handle = await start(created.activationId);
    await verify(handle);
    await env.sleep(60_000);
    await handle.cancel();

    const failure = await handle.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(await activation(created.activationId)).toMatchObject({
      status: 'cancelled',
      failed_reason: ACTIVATION_END_REASONS.cancelledBySupport,
    });
    expect(await order(created.orderId)).toBe('cancelled');
    await expectSerialFree(userId, created.iccid);
  });
});

describe('runs recorded before this change', () => {
  it('replay without a nondeterminism error: an in-flight poll superseded by a new verification, then the timeout cancel', async () => {
    // Recorded with the workflow as it was: verification A polled slowly while B started, B completed, never paid, cancelled.
    const file = path.join(__dirname, 'fixtures', 'activation-history-before-outages.json');
    const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history)).resolves.toBeUndefined();
  });
});
