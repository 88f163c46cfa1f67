import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { ActivationStatus, IdentityStatus } from '../../src/entities/activation';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  identityStartedSignal,
  orderPaidSignal,
  stateQuery,
  verifyIdentityUpdate,
  type ActivationWorkflowInput,
} from '../../workflows/contracts/activation-contract';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, testDataConverter } from '../helpers/temporal';

/** Runs fn as a promise: its value resolves, its throw rejects. */
const settle = <T>(fn: () => T): Promise<T> => new Promise((resolve) => resolve(fn()));

jest.setTimeout(60_000);

const TIMERS = { cancelAfterMs: 24 * 3600_000, identityPollIntervalMs: 5_000, identityRequestTtlMs: 300_000 };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
});
afterAll(() => env?.teardown());

/** Fake activities that record what the workflow asked for. */
function fakes(
  opts: {
    identity?: (transId: string, poll: number) => IdentityStatus;
    activateSim?: (attempt: number) => void;
    orderPaidInDatabase?: () => boolean;
  } = {},
) {
  const log: string[] = [];
  const polls = new Map<string, number>();
  let transactions = 0;
  let activations = 0;
  const activities: Partial<Activities> = {
    // Fakes keep the activities' promise contract: a throw inside rejects.
    initiateIdentity: ({ idNumber }) =>
      settle(() => {
        transactions += 1;
        log.push(`initiate:${idNumber}`);
        return { transId: `t${transactions}:${idNumber}`, randomCode: '42' };
      }),
    pollIdentity: ({ transId }) =>
      settle(() => {
        const n = (polls.get(transId) ?? 0) + 1;
        polls.set(transId, n);
        return opts.identity ? opts.identity(transId, n) : n >= 2 ? 'completed' : 'waiting';
      }),
    recordIdentityStatus: ({ identityStatus }) =>
      settle(() => {
        log.push(`identity:${identityStatus}`);
        return { withinLimit: true as const };
      }),
    // The handoff's SIM-limit gate (tested with real activities in activation-sim-limit.test.ts) moves to in_progress.
    startHandoff: () =>
      settle(() => {
        log.push('status:in_progress');
        return { withinLimit: true as const };
      }),
    recordActivationStatus: ({ status, failedReason }) =>
      settle(() => void log.push(`status:${status}${failedReason ? `:${failedReason}` : ''}`)),
    // The deadline's last look (tested with real activities in activation-refunds.test.ts): a paid order is left alone.
    endActivation: ({ status, reason, unlessPaid }) =>
      settle(() => {
        if (unlessPaid && opts.orderPaidInDatabase?.()) return { status: 'pending' as const, paid: true };
        log.push(`status:${status}:${reason}`);
        return { status, paid: false };
      }),
    cancelOpenIntents: () => settle(() => ({ cancelled: 0, succeeded: 0, left: 0 })),
    activateSim: () =>
      settle(() => {
        activations += 1;
        opts.activateSim?.(activations);
        log.push('operator:activateSim');
      }),
    issueEsim: () => settle(() => void log.push('operator:issueEsim')),
    sendEsimQrEmail: () => settle(() => void log.push('email:qr')),
    isOrderPaid: () => settle(() => opts.orderPaidInDatabase?.() ?? false),
  };
  return { activities, log };
}

async function run(
  activities: Partial<Activities>,
  drive: (handle: Awaited<ReturnType<TestWorkflowEnvironment['client']['workflow']['start']>>) => Promise<void>,
  input: Partial<ActivationWorkflowInput> = {},
): Promise<ActivationStatus> {
  const taskQueue = uniqueTaskQueue('activation');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities,
  });
  return worker.runUntil(async () => {
    const activationId = randomUUID();
    const handle = await env.client.workflow.start(activationWorkflow, {
      taskQueue,
      workflowId: activationWorkflowId(activationId),
      args: [{ activationId, simType: 'physical', timers: TIMERS, ...input } satisfies ActivationWorkflowInput],
    });
    await drive(handle);
    return handle.result();
  });
}

const verify = (idNumber = '1234567890') => ({
  args: [{ identityType: 'citizen' as const, idNumber }] as [{ identityType: 'citizen'; idNumber: string }],
});

describe('activation workflow', () => {
  it('identity, then payment: activates', async () => {
    const { activities, log } = fakes();
    const status = await run(activities, async (handle) => {
      const answer = await handle.executeUpdate(verifyIdentityUpdate, verify());
      expect(answer).toEqual({ transId: 't1:1234567890', randomCode: '42', status: 'waiting' });
      await env.sleep(60_000);
      expect(await handle.query(stateQuery)).toEqual({ status: 'pending', identityStatus: 'completed', paid: false });
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
    });
    expect(status).toBe('activated');
    expect(log).toEqual(['initiate:1234567890', 'identity:completed', 'status:in_progress', 'operator:activateSim']);
  });

  it('a verification the API started (identityStarted): polled, then payment activates; a repeat or an older attempt changes nothing', async () => {
    const polled: string[] = [];
    const { activities, log } = fakes({
      identity: (transId, poll) => {
        polled.push(transId);
        return transId === 'tx-2' && poll >= 2 ? 'completed' : 'waiting';
      },
    });
    const status = await run(activities, async (handle) => {
      await handle.signal(identityStartedSignal, { transId: 'tx-1', attempt: 1 });
      await handle.signal(identityStartedSignal, { transId: 'tx-2', attempt: 2 });
      // Delivered again (at least once), and the first attempt late: both ignored.
      await handle.signal(identityStartedSignal, { transId: 'tx-2', attempt: 2 });
      await handle.signal(identityStartedSignal, { transId: 'tx-1', attempt: 1 });
      await env.sleep(60_000);
      expect(await handle.query(stateQuery)).toEqual({ status: 'pending', identityStatus: 'completed', paid: false });
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
    });
    expect(status).toBe('activated');
    expect(new Set(polled)).toEqual(new Set(['tx-2']));
    expect(log).toEqual(['identity:completed', 'status:in_progress', 'operator:activateSim']);
  });

  it('payment, then identity: handoff waits for identity', async () => {
    const { activities, log } = fakes();
    const status = await run(activities, async (handle) => {
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
      await env.sleep(3600_000);
      expect(log).toEqual([]);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'pending', paid: true, identityStatus: 'waiting' });
      await handle.executeUpdate(verifyIdentityUpdate, verify());
    });
    expect(status).toBe('activated');
    expect(log).toEqual(['initiate:1234567890', 'identity:completed', 'status:in_progress', 'operator:activateSim']);
  });

  it('identity rejected, then retried and completed', async () => {
    const { activities, log } = fakes({
      identity: (transId, n) => (transId.endsWith('1111111111') ? 'rejected' : n >= 1 ? 'completed' : 'waiting'),
    });
    const status = await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify('1111111111'));
      await env.sleep(30_000);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'pending', identityStatus: 'rejected' });
      await handle.executeUpdate(verifyIdentityUpdate, verify('2222222220'));
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
    });
    expect(status).toBe('activated');
    expect(log).toEqual([
      'initiate:1111111111',
      'identity:rejected',
      'initiate:2222222220',
      'identity:completed',
      'status:in_progress',
      'operator:activateSim',
    ]);
  });

  it('a verification that stays waiting expires after its request lifetime; the activation stays pending', async () => {
    const { activities, log } = fakes({ identity: () => 'waiting' });
    const status = await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify());
      await env.sleep(TIMERS.identityRequestTtlMs + 10_000);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'pending', identityStatus: 'expired' });
    });
    // Nobody pays or verifies again: the cancellation timer ends it.
    expect(status).toBe('cancelled');
    expect(log).toEqual(['initiate:1234567890', 'identity:expired', 'status:cancelled:IDENTITY_NOT_COMPLETED_IN_TIME']);
  });

  it('cancels an activation that stays unpaid, after the configured time', async () => {
    const { activities, log } = fakes();
    const started = await env.currentTimeMs();
    const status = await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify());
    });
    expect(status).toBe('cancelled');
    expect(log).toEqual(['initiate:1234567890', 'identity:completed', 'status:cancelled:NOT_PAID_IN_TIME']);
    expect((await env.currentTimeMs()) - started).toBeGreaterThanOrEqual(TIMERS.cancelAfterMs);
  });

  it('refuses a new verification once identity is completed (IDENTITY_ERROR), without touching history', async () => {
    const { activities, log } = fakes();
    await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify());
      await env.sleep(60_000);
      await expect(handle.executeUpdate(verifyIdentityUpdate, verify('5555555555'))).rejects.toMatchObject({
        cause: { type: 'IDENTITY_ERROR' },
      });
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
    });
    expect(log.filter((l) => l.startsWith('initiate'))).toEqual(['initiate:1234567890']);
  });

  it('retries a transient operator failure until it succeeds, never surfacing it', async () => {
    const { activities, log } = fakes({
      activateSim: (attempt) => {
        if (attempt < 3) throw new Error('operator unavailable');
      },
    });
    const status = await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify());
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
    });
    expect(status).toBe('activated');
    expect(log.filter((l) => l.startsWith('status:'))).toEqual(['status:in_progress']);
  });

  it('ends `failed` with the reason when the operator rejects the SIM', async () => {
    const { activities, log } = fakes({
      activateSim: () => {
        throw ApplicationFailure.nonRetryable('SIM blocked by the operator', 'OperatorRejection');
      },
    });
    const status = await run(activities, async (handle) => {
      await handle.signal(orderPaidSignal, { paymentId: 'p1' });
      await handle.executeUpdate(verifyIdentityUpdate, verify());
    });
    expect(status).toBe('failed');
    expect(log.slice(-2)).toEqual(['status:in_progress', 'status:failed:SIM blocked by the operator']);
  });

  it('notices a payment whose signal was lost, by checking the order row', async () => {
    let paidInDatabase = false;
    const { activities, log } = fakes({ orderPaidInDatabase: () => paidInDatabase });
    const status = await run(activities, async (handle) => {
      await handle.executeUpdate(verifyIdentityUpdate, verify());
      await env.sleep(60_000);
      paidInDatabase = true; // the payment committed, but no signal ever arrives
    });
    expect(status).toBe('activated');
    expect(log.slice(-2)).toEqual(['status:in_progress', 'operator:activateSim']);
  });

  it('issues an eSIM and sends the QR e-mail', async () => {
    const { activities, log } = fakes();
    const status = await run(
      activities,
      async (handle) => {
        await handle.executeUpdate(verifyIdentityUpdate, verify());
        await handle.signal(orderPaidSignal, { paymentId: 'p1' });
      },
      { simType: 'esim' },
    );
    expect(status).toBe('activated');
    expect(log.slice(-3)).toEqual(['status:in_progress', 'operator:issueEsim', 'email:qr']);
  });
});
