import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { luhnValid } from '../../src/operators/mock';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  orderPaidSignal,
  verifyIdentityUpdate,
  type ActivationWorkflowInput,
} from '../../workflows/contracts/activation-contract';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { iccid } from '../helpers/activations';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, runTestWorker, type RunningTestWorker } from '../helpers/temporal';
import { realActivities } from '../helpers/real-activities';

jest.setTimeout(60_000);

const TIMERS = { cancelAfterMs: 24 * 3600_000, identityPollIntervalMs: 5_000, identityRequestTtlMs: 300_000 };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
const messages = createMemoryMessageSender();
let worker: RunningTestWorker;
let taskQueue: string;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows')), createTestApp()]);
  await seedCatalog(t);
  taskQueue = uniqueTaskQueue('activation-real');
  worker = await runTestWorker(env, {
    taskQueue: taskQueue,
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config, { messages }),
  });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

let idSeq = 0;
/** A person's own id number per activation (ending in 0: completed by the mock), so SIM limits per identity never join two tests. */
const newIdNumber = () => `1${String(process.pid % 10000).padStart(4, '0')}${String(++idSeq).padStart(4, '0')}0`;

async function activate(activationId: string, simType: 'physical' | 'esim', idNumber = newIdNumber()) {
  const handle = await env.client.workflow.start(activationWorkflow, {
    taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [{ activationId, simType, timers: TIMERS } satisfies ActivationWorkflowInput],
  });
  await handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType: 'resident', idNumber }] });
  await handle.signal(orderPaidSignal, { paymentId: 'p1' });
  return handle.result();
}

const row = async (id: string) => (await t.db.query<Record<string, unknown>>('select * from activations where id = $1', [id]))[0];

describe('activation workflow with the real activities', () => {
  it('issues an eSIM: the operator payload and ICCID replace the stored code, the profile appears, a QR e-mail goes out', async () => {
    const email = `esim-${Date.now()}@example.com`;
    const { userId } = await signUp(t, { email });
    const submitted = 'LPA:1$smdp.example.com$MATCH-REAL-1';
    const { activationId } = await insertActivation(t, { userId, simType: 'esim', iccid: submitted });

    expect(await activate(activationId, 'esim', '1234567890')).toBe('activated');

    const stored = await row(activationId);
    expect(stored.status).toBe('activated');
    expect(stored.activated_at).not.toBeNull();
    expect(stored.iccid).not.toBe(submitted);
    expect(stored.iccid).toMatch(/^8997\d{15}$/);
    expect(luhnValid(String(stored.iccid))).toBe(true);
    expect(stored.esim_profile).toEqual({
      smdpAddress: 'smdp.example.com',
      matchingId: `MATCH-REAL-1-${activationId.slice(0, 8).toUpperCase()}`,
      activationCodeRaw: `LPA:1$smdp.example.com$MATCH-REAL-1-${activationId.slice(0, 8).toUpperCase()}`,
      qrUrl: `/activations/${activationId}/esim-qr`,
    });
    expect(stored.identity_status).toBe('completed');
    expect(messages.messages.at(-1)).toMatchObject({ channel: 'email', to: email, purpose: 'esim.qr' });
    // A completed verification sets the person's identity type.
    expect((await t.db.query('select identity_type from users where id = $1', [userId]))[0]).toEqual({ identity_type: 'resident' });
    expect(stored.id_number_encrypted).not.toContain('1234567890');
  });

  it('activates a physical SIM after a transient operator failure (retried, never surfaced)', async () => {
    const { userId } = await signUp(t);
    const { activationId } = await insertActivation(t, { userId, iccid: iccid('9003') });
    expect(await activate(activationId, 'physical')).toBe('activated');
    expect(await row(activationId)).toMatchObject({ status: 'activated', failed_reason: null, estimated_activation_seconds: 0 });
  });

  it('ends `failed` with the operator reason when the SIM is rejected at handoff', async () => {
    const { userId } = await signUp(t);
    const { activationId } = await insertActivation(t, { userId, iccid: iccid('9004') });
    expect(await activate(activationId, 'physical')).toBe('failed');
    expect(await row(activationId)).toMatchObject({ status: 'failed', failed_reason: 'SIM blocked by the operator' });
  });

  it('writes each identity outcome the mock provider gives, and refuses initiation for ids ending in 4', async () => {
    const { userId } = await signUp(t);
    const { activationId } = await insertActivation(t, { userId });
    const handle = await env.client.workflow.start(activationWorkflow, {
      taskQueue,
      workflowId: activationWorkflowId(activationId),
      args: [{ activationId, simType: 'physical', timers: TIMERS } satisfies ActivationWorkflowInput],
    });
    await expect(
      handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType: 'citizen', idNumber: '1234567894' }] }),
    ).rejects.toMatchObject({
      cause: { type: 'IDENTITY_ERROR' },
    });
    for (const [idNumber, outcome] of [
      ['1234567891', 'rejected'],
      ['1234567892', 'expired'],
      ['1234567893', 'error'],
    ] as const) {
      await handle.executeUpdate(verifyIdentityUpdate, { args: [{ identityType: 'citizen', idNumber }] });
      await env.sleep(10_000);
      expect((await row(activationId)).identity_status).toBe(outcome);
    }
    await handle.terminate('test done');
  });
});
