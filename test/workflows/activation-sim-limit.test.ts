import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { IdentityType } from '../../src/entities';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { activationWorkflow } from '../../workflows/activation';
import type { SimLimitVerdict } from '../../workflows/contracts/activation-contract';
import { activationWorkflowId, verifyIdentityUpdate, type ActivationWorkflowInput } from '../../workflows/contracts/activation-contract';
import { activationRow, orderStatus, payOrder } from '../helpers/activations';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertCompany, insertUser } from '../helpers/companies';
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

async function start(activationId: string, opts: { paid?: boolean } = {}) {
  return env.client.workflow.start(activationWorkflow, {
    taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [{ activationId, simType: 'physical', timers: TIMERS, ...opts } satisfies ActivationWorkflowInput],
  });
}

let idSeq = 0;
/** A national id number of its own (ending in 0: the mock provider completes it). */
const newIdNumber = () => `2${String(process.pid % 10000).padStart(4, '0')}${String(++idSeq).padStart(4, '0')}0`;
const idHash = (idNumber: string) => createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY).lookupHash(idNumber);

/** Verification as `identityType` with `idNumber`, left to complete (the mock answers at the first poll). */
async function verify(handle: Awaited<ReturnType<typeof start>>, identityType: IdentityType, idNumber: string) {
  await handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType, idNumber }] });
  await env.sleep(10_000);
}

const pay = (handle: Awaited<ReturnType<typeof start>>, orderId: string) => payOrder(t.db, handle, orderId);

const activation = (id: string) => activationRow(t.db, id);
const order = (id: string) => orderStatus(t.db, id);

describe('SIM limits on the verified identity', () => {
  it('a visitor who created ten activations as the default citizen gets one SIM; the next verification fails it', async () => {
    const { userId } = await signUp(t);
    const id = newIdNumber();
    const created = [];
    for (let i = 0; i < 10; i += 1) created.push(await insertActivation(t, { userId }));
    const [first, second, third] = created;

    const firstRun = await start(first.activationId);
    await verify(firstRun, 'visitor', id);
    await pay(firstRun, first.orderId);
    expect(await firstRun.result()).toBe('activated');
    expect((await t.db.query('select identity_type from users where id = $1', [userId]))[0]).toEqual({ identity_type: 'visitor' });

    // Paid first, verified second: the verification puts the visitor over 1, the activation fails (the money is
    // handled as for any failed activation: the order stays paid for support to refund).
    const secondRun = await start(second.activationId);
    await pay(secondRun, second.orderId);
    await verify(secondRun, 'visitor', id);
    expect(await secondRun.result()).toBe('failed');
    expect(await activation(second.activationId)).toEqual({
      status: 'failed',
      identity_status: 'completed',
      failed_reason: 'SIM_LIMIT_EXCEEDED',
    });
    expect(await order(second.orderId)).toBe('paid');

    // Verified while unpaid: failed at once, and its order is cancelled so it can no longer be paid.
    const thirdRun = await start(third.activationId);
    await verify(thirdRun, 'visitor', id);
    expect(await thirdRun.result()).toBe('failed');
    expect(await activation(third.activationId)).toMatchObject({ status: 'failed', failed_reason: 'SIM_LIMIT_EXCEEDED' });
    expect(await order(third.orderId)).toBe('cancelled');
  });

  it('re-checks before the handoff: a SIM of the same identity that went live meanwhile, on another account, fails the waiting one', async () => {
    const { userId } = await signUp(t);
    const other = await signUp(t);
    const id = newIdNumber();
    const waiting = await insertActivation(t, { userId });
    const run = await start(waiting.activationId);
    await verify(run, 'resident', id);
    expect(await activation(waiting.activationId)).toMatchObject({ status: 'pending', identity_status: 'completed' });

    // Two live SIMs of the same verified identity appear on the person's other account (e.g. runs
    // verified before this check existed): a resident may hold 2.
    for (let i = 0; i < 2; i += 1) {
      const live = await insertActivation(t, {
        userId: other.userId,
        status: 'activated',
        identityStatus: 'completed',
        idNumberHash: idHash(id),
      });
      await t.db.query(`update activations set identity_type = 'resident' where id = $1`, [live.activationId]);
    }
    await pay(run, waiting.orderId);
    expect(await run.result()).toBe('failed');
    expect(await activation(waiting.activationId)).toMatchObject({ status: 'failed', failed_reason: 'SIM_LIMIT_EXCEEDED' });
  });

  it('a citizen within the limit is not affected', async () => {
    const { userId } = await signUp(t);
    const id = newIdNumber();
    const runs = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await insertActivation(t, { userId });
      const run = await start(created.activationId);
      await verify(run, 'citizen', id);
      await pay(run, created.orderId);
      runs.push(run);
    }
    for (const run of runs) expect(await run.result()).toBe('activated');
  });
});

// Issue 20: "counts per account; one person with two phones (two accounts), or a seat at two companies,
// gets one limit per account. Count per verified identity" (the keyed hash of the id number, stored with
// each verification on its activation row).
describe('SIM limits per verified identity, across accounts', () => {
  it('one person with two phones: a visitor verified on account A with one live SIM; the same id number on account B fails B', async () => {
    const id = newIdNumber();
    const a = await signUp(t);
    const onA = await insertActivation(t, { userId: a.userId });
    const runA = await start(onA.activationId);
    await verify(runA, 'visitor', id);
    await pay(runA, onA.orderId);
    expect(await runA.result()).toBe('activated');

    const b = await signUp(t);
    const onB = await insertActivation(t, { userId: b.userId });
    const runB = await start(onB.activationId);
    await verify(runB, 'visitor', id);
    expect(await runB.result()).toBe('failed');
    expect(await activation(onB.activationId)).toEqual({
      status: 'failed',
      identity_status: 'completed',
      failed_reason: 'SIM_LIMIT_EXCEEDED',
    });
    expect(await order(onB.orderId)).toBe('cancelled');
    // Another visitor on account B is a person of their own: within their limit.
    const again = await insertActivation(t, { userId: b.userId });
    const runAgain = await start(again.activationId);
    await verify(runAgain, 'visitor', newIdNumber());
    await pay(runAgain, again.orderId);
    expect(await runAgain.result()).toBe('activated');
  });

  it('a seat at two companies: the visitor’s seat SIM at company 1 fails the same id number’s seat at company 2', async () => {
    const id = newIdNumber();
    const seat = async () => {
      const { userId } = await signUp(t);
      const companyId = await insertCompany(t.db, 'approved');
      return insertActivation(t, { userId, order: { companyId, status: 'paid' } });
    };
    const first = await seat();
    const firstRun = await start(first.activationId, { paid: true });
    await verify(firstRun, 'visitor', id);
    expect(await firstRun.result()).toBe('activated');

    const second = await seat();
    const secondRun = await start(second.activationId, { paid: true });
    await verify(secondRun, 'visitor', id);
    expect(await secondRun.result()).toBe('failed');
    expect(await activation(second.activationId)).toEqual({
      status: 'failed',
      identity_status: 'completed',
      failed_reason: 'SIM_LIMIT_EXCEEDED',
    });
  });

  it('exact under parallel verifications: ten accounts of one visitor complete at once, exactly one keeps its slot (five rounds)', async () => {
    const activities = realActivities(t.db, t.config);
    type RecordInput = Parameters<typeof activities.recordIdentityStatus>[0];
    const record = (input: RecordInput) => activities.recordIdentityStatus(input);
    for (let round = 0; round < 5; round += 1) {
      const id = newIdNumber();
      const rows = [];
      for (let i = 0; i < 10; i += 1) {
        const userId = await insertUser(t.db, `Visitor ${i}`);
        const transId = `trans-${id}-${i}`;
        const row = await insertActivation(t, { userId, identityStatus: 'waiting', identityRef: transId, idNumberHash: idHash(id) });
        await t.db.query(`update activations set identity_type = 'visitor' where id = $1`, [row.activationId]);
        rows.push({ ...row, transId });
      }
      const verdicts = await Promise.all(
        rows.map((r) =>
          new MockActivityEnvironment().run<[RecordInput], SimLimitVerdict, typeof record>(record, {
            activationId: r.activationId,
            transId: r.transId,
            identityStatus: 'completed',
          }),
        ),
      );
      expect([round, verdicts.filter((v) => v.withinLimit).length]).toEqual([round, 1]);
      const failed = await t.db.query<{ n: number }>(
        `select count(*)::int as n from activations where id_number_hash = $1 and failed_reason = 'SIM_LIMIT_EXCEEDED'`,
        [idHash(id)],
      );
      expect(failed).toEqual([{ n: 9 }]);
    }
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
