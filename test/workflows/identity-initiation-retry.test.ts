/**
 * Issue 20, identity initiation on worker loss: "with the worker killed by SIGKILL mid-burst, a
 * `verify-identity` whose activity was on the dead worker answered IDENTITY_ERROR after 12 s instead of
 * being retried on the restarted worker ... Activities behind an update (identity initiation) are
 * retried on worker loss within the request's deadline."
 *
 * The verify-identity update on the real workflow (time-skipping server) and the real activity on
 * Postgres, through the API's own update call (src/activations/runs-temporal.ts, its 15 s deadline). A lost
 * worker is an attempt that stops heartbeating; provider refusals and outages stay one attempt.
 */
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { AppError } from '../../src/http/errors';
import { IdentityInitiationError, IdentityProviderUnavailable, type IdentityProvider } from '../../src/identity/provider';
import { UPDATE_DEADLINE_MS } from '../../src/temporal/update';
import { activationWorkflow } from '../../workflows/activation';
import {
  activationWorkflowId,
  IDENTITY_PROVIDER_UNAVAILABLE,
  type ActivationWorkflowInput,
} from '../../workflows/contracts/activation-contract';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { verifyByUpdate } from '../helpers/activations';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

/** What the provider does per activation (by `reference`), and the calls it got with their idempotency keys. */
const behaviour = new Map<string, 'answer' | 'refuse' | 'down' | { slowMs: number }>();
const calls: Array<{ reference: string; idempotencyKey?: string }> = [];
const identity: IdentityProvider = {
  async initiate({ reference, idempotencyKey }) {
    calls.push({ reference, idempotencyKey });
    const what = behaviour.get(reference) ?? 'answer';
    if (what === 'refuse') throw new IdentityInitiationError('identity provider refused the verification (HTTP 422)');
    if (what === 'down') throw new IdentityProviderUnavailable('identity provider unavailable (HTTP 503)');
    if (typeof what === 'object') await new Promise((resolve) => setTimeout(resolve, what.slowMs));
    return { transId: `tx.${reference}.${calls.length}`, randomCode: '42' };
  },
  status: () => Promise.resolve('waiting'),
};

/** Activations whose first initiation attempt runs on a worker that dies: it stops heartbeating and never answers. */
const dyingFirstAttempt = new Set<string>();

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows')), createTestApp()]);
  await seedCatalog(t);
  const real = realActivities(t.db, t.config, { identity });
  worker = await runTestWorker(env, {
    taskQueue: uniqueTaskQueue('identity-retry'),
    workflowBundle: bundle,
    activities: {
      ...real,
      async initiateIdentity(input: Parameters<typeof real.initiateIdentity>[0]) {
        if (dyingFirstAttempt.has(input.activationId) && Context.current().info.attempt === 1) {
          calls.push({ reference: input.activationId, idempotencyKey: 'lost with its worker' });
          // Silent from here on, as a killed worker is; the worker's shutdown ends the wait.
          await Context.current().sleep(60_000);
          throw new Error('this worker was gone long ago');
        }
        return real.initiateIdentity(input);
      },
    },
  });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

/** A pending activation with its run. */
async function pendingActivation(): Promise<string> {
  const { userId } = await signUp(t);
  const { activationId } = await insertActivation(t, { userId });
  await env.client.workflow.start(activationWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: activationWorkflowId(activationId),
    args: [
      {
        activationId,
        simType: 'physical',
        timers: {
          cancelAfterMs: 24 * 3600_000,
          identityPollIntervalMs: 60_000,
          identityRequestTtlMs: 300_000,
          paidCheckIntervalMs: 3600_000,
        },
      } satisfies ActivationWorkflowInput,
    ],
  });
  return activationId;
}

const callsFor = (activationId: string) => calls.filter((c) => c.reference === activationId);
const verify = (activationId: string) => verifyByUpdate(env.client, activationId, { identityType: 'citizen', idNumber: '1098765430' });

it('retries an initiation whose worker died (no heartbeat) on another attempt, and answers within the API’s deadline', async () => {
  const activationId = await pendingActivation();
  dyingFirstAttempt.add(activationId);
  const started = Date.now();

  const answer = await verify(activationId);

  expect(answer).toEqual({ transId: expect.stringMatching(/^tx\./) as string, randomCode: '42', status: 'waiting' });
  expect(Date.now() - started).toBeLessThan(UPDATE_DEADLINE_MS);
  expect(callsFor(activationId)).toHaveLength(2);
  const [row] = await t.db.query<{ identity_ref: string; identity_status: string }>(
    'select identity_ref, identity_status from activations where id = $1',
    [activationId],
  );
  expect(row).toEqual({ identity_ref: answer.transId, identity_status: 'waiting' });
});

it('keeps a provider call slower than the heartbeat timeout alive: the activity heartbeats while it waits (one call)', async () => {
  const activationId = await pendingActivation();
  behaviour.set(activationId, { slowMs: 4_500 });
  await expect(verify(activationId)).resolves.toMatchObject({ status: 'waiting' });
  expect(callsFor(activationId)).toHaveLength(1);
});

it('gives the provider one stable idempotency key per initiation, so a retried attempt cannot start a second transaction', async () => {
  const activationId = await pendingActivation();
  await verify(activationId);
  await verify(activationId);
  const [first, second] = callsFor(activationId).map((c) => c.idempotencyKey);
  expect(first).toEqual(expect.stringContaining(activationWorkflowId(activationId)));
  expect(second).not.toBe(first);
});

it.each([
  ['refuses', 'refuse', undefined],
  ['is down', 'down', { reason: IDENTITY_PROVIDER_UNAVAILABLE }],
] as const)('answers IDENTITY_ERROR after one attempt when the provider %s', async (_label, what, details) => {
  const activationId = await pendingActivation();
  behaviour.set(activationId, what);
  const refusal = await verify(activationId).catch((err: unknown) => err);
  expect(refusal).toBeInstanceOf(AppError);
  expect(refusal).toMatchObject({ code: 'IDENTITY_ERROR', ...(details ? { details } : {}) });
  expect(callsFor(activationId)).toHaveLength(1);
});

it('bounds every attempt together inside the API’s wait, with a heartbeat timeout of a few seconds', async () => {
  const activationId = await pendingActivation();
  await verify(activationId);
  const history = await env.client.workflow.getHandle(activationWorkflowId(activationId)).fetchHistory();
  const [scheduled] = (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'initiateIdentity');
  const seconds = (d: { seconds?: unknown } | null | undefined) => Number(d?.seconds ?? 0);
  expect(seconds(scheduled!.heartbeatTimeout)).toBeGreaterThan(0);
  expect(seconds(scheduled!.heartbeatTimeout)).toBeLessThanOrEqual(5);
  expect(seconds(scheduled!.scheduleToCloseTimeout) * 1000).toBeLessThanOrEqual(UPDATE_DEADLINE_MS - 3_000);
  expect(scheduled!.retryPolicy?.nonRetryableErrorTypes).toEqual(expect.arrayContaining(['IDENTITY_ERROR']));
});
