import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { IdentityType } from '../../src/entities';
import { activationWorkflow } from '../../workflows/activation';
import { activationWorkflowId, verifyIdentityUpdate, type ActivationWorkflowInput } from '../../workflows/activation-contract';
import { activationRow, orderStatus, payOrder } from '../helpers/activations';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, runTestWorker, type RunningTestWorker } from '../helpers/temporal';
import { realActivities } from '../helpers/real-activities';

// SIM limits hold on the identity the provider verified, not on the type the person had when
// creating (the default citizen): checked under the user lock when a verification completes and
// again before the handoff. Real activities and Postgres, time-skipping server.
jest.setTimeout(90_000);

const TIMERS = { cancelAfterMs: 24 * 3600_000, identityPollIntervalMs: 5_000, identityRequestTtlMs: 300_000 };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
let taskQueue: string;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows')), createTestApp()]);
  await seedCatalog(t);
  taskQueue = uniqueTaskQueue('activation-sim-limit');
  worker = await runTestWorker(env, { taskQueue: taskQueue, workflowBundle: bundle, activities: realActivities(t.db, t.config) });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

async function start(activationId: string) {
  return env.client.workflow.start(activationWorkflow, {
    taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [{ activationId, simType: 'physical', timers: TIMERS } satisfies ActivationWorkflowInput],
  });
}

/** Verification as `identityType`, left to complete (the mock answers at the first poll). */
async function verify(handle: Awaited<ReturnType<typeof start>>, identityType: IdentityType) {
  await handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType, idNumber: '2234567890' }] });
  await env.sleep(10_000);
}

const pay = (handle: Awaited<ReturnType<typeof start>>, orderId: string) => payOrder(t.db, handle, orderId);

const activation = (id: string) => activationRow(t.db, id);
const order = (id: string) => orderStatus(t.db, id);

describe('SIM limits on the verified identity', () => {
  it('a visitor who created ten activations as the default citizen gets one SIM; the next verification fails it', async () => {
    const { userId } = await signUp(t);
    const created = [];
    for (let i = 0; i < 10; i += 1) created.push(await insertActivation(t, { userId }));
    const [first, second, third] = created;

    const firstRun = await start(first.activationId);
    await verify(firstRun, 'visitor');
    await pay(firstRun, first.orderId);
    expect(await firstRun.result()).toBe('activated');
    expect((await t.db.query('select identity_type from users where id = $1', [userId]))[0]).toEqual({ identity_type: 'visitor' });

    // Paid first, verified second: the verification puts the visitor over 1, the activation fails (the money is
    // handled as for any failed activation: the order stays paid for support to refund).
    const secondRun = await start(second.activationId);
    await pay(secondRun, second.orderId);
    await verify(secondRun, 'visitor');
    expect(await secondRun.result()).toBe('failed');
    expect(await activation(second.activationId)).toEqual({
      status: 'failed',
      identity_status: 'completed',
      failed_reason: 'SIM_LIMIT_EXCEEDED',
    });
    expect(await order(second.orderId)).toBe('paid');

    // Verified while unpaid: failed at once, and its order is cancelled so it can no longer be paid.
    const thirdRun = await start(third.activationId);
    await verify(thirdRun, 'visitor');
    expect(await thirdRun.result()).toBe('failed');
    expect(await activation(third.activationId)).toMatchObject({ status: 'failed', failed_reason: 'SIM_LIMIT_EXCEEDED' });
    expect(await order(third.orderId)).toBe('cancelled');
  });

  it('re-checks before the handoff: a SIM that went live meanwhile by another path fails the waiting one', async () => {
    const { userId } = await signUp(t);
    const waiting = await insertActivation(t, { userId });
    const run = await start(waiting.activationId);
    await verify(run, 'resident');
    expect(await activation(waiting.activationId)).toMatchObject({ status: 'pending', identity_status: 'completed' });

    // Two live SIMs appear (e.g. runs verified before this check existed): a resident may hold 2.
    for (let i = 0; i < 2; i += 1) {
      const live = await insertActivation(t, { userId, status: 'activated', identityStatus: 'completed' });
      await t.db.query(`update activations set identity_type = 'resident' where id = $1`, [live.activationId]);
    }
    await pay(run, waiting.orderId);
    expect(await run.result()).toBe('failed');
    expect(await activation(waiting.activationId)).toMatchObject({ status: 'failed', failed_reason: 'SIM_LIMIT_EXCEEDED' });
  });

  it('a citizen within the limit is not affected', async () => {
    const { userId } = await signUp(t);
    const runs = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await insertActivation(t, { userId });
      const run = await start(created.activationId);
      await verify(run, 'citizen');
      await pay(run, created.orderId);
      runs.push(run);
    }
    for (const run of runs) expect(await run.result()).toBe('activated');
  });
});

describe('runs recorded before the gates', () => {
  it('replay with the new code without a nondeterminism error (patched keeps their path)', async () => {
    // Recorded with the workflow as it was before the gates: verified, paid, recordActivationStatus(in_progress), activated.
    const file = path.join(__dirname, 'fixtures', 'activation-history-before-sim-limit.json');
    const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history)).resolves.toBeUndefined();
  });
});
