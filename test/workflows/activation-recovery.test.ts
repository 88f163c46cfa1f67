// The recovery of the start gap on the dev server (real visibility, schedules, describe's NotFound) with the
// real activities on a test database: which rows it takes for stranded, what it starts them with, and that
// its schedule runs it.
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Config } from '../../src/config';
import { activationRecoveryScheduleSpec } from '../../src/temporal/activation-recovery';
import { createActivationWorkflows, SEARCH_ATTRIBUTES } from '../../src/temporal/activations';
import { ensureSchedules, scheduleSpecs } from '../../src/temporal/schedules';
import { activationRecoveryWorkflow } from '../../workflows/activation-recovery';
import { activationWorkflowId, stateQuery } from '../../workflows/activation-contract';
import { ACTIVATION_RECOVERY_SCHEDULE_ID, type ActivationRecoveryInput } from '../../workflows/activation-recovery-contract';
import { createTestApp, eventually, signUp, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog, type ActivationFixture } from '../helpers/read-app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createLocalEnv, uniqueTaskQueue, runTestWorker, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(90_000);

const DAY_MS = 24 * 3600_000;
const GRACE_MS = 60_000;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
let config: Config;

beforeAll(async () => {
  [env, bundle, t] = await Promise.all([
    createLocalEnv({ server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } }),
    bundleWorkflows(require.resolve('../../workflows')),
    createTestApp(),
  ]);
  await seedCatalog(t);
  config = { ...t.config, TEMPORAL_TASK_QUEUE: uniqueTaskQueue('recovery'), ACTIVATION_RECOVERY_GRACE_SECONDS: GRACE_MS / 1000 };
  worker = await runTestWorker(env, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config),
  });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

const input = (): ActivationRecoveryInput => activationRecoveryScheduleSpec(config).args[0] as ActivationRecoveryInput;
const recover = () =>
  env.client.workflow.execute(activationRecoveryWorkflow, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: `recovery-test-${Date.now()}-${Math.random()}`,
    args: [input()],
  });

/** A `pending` activation whose workflow never started (as the API leaves it when it dies after the commit). */
async function stranded(ageMs: number, opts: { orderStatus?: string; status?: ActivationFixture['status']; markedStarted?: boolean } = {}) {
  const { userId } = await signUp(t);
  const createdAt = new Date(Date.now() - ageMs).toISOString();
  const fixture = await insertActivation(t, {
    userId,
    status: opts.status ?? 'pending',
    createdAt,
    order: { status: opts.orderStatus ?? 'pending_payment' },
  });
  if (opts.markedStarted) await t.db.query('update activations set workflow_started_at = now() where id = $1', [fixture.activationId]);
  return fixture.activationId;
}

async function hasRun(activationId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(activationWorkflowId(activationId)).describe();
    return true;
  } catch {
    return false;
  }
}

const rowOf = async (activationId: string) =>
  (
    await t.db.query<{ status: string; order_status: string; marked: boolean }>(
      `select a.status, o.status as order_status, a.workflow_started_at is not null as marked
         from activations a join orders o on o.id = a.order_id where a.id = $1`,
      [activationId],
    )
  )[0];

it('starts stranded rows with what is left of their deadline, cancels those past it, and leaves every other row alone', async () => {
  const young = await stranded(5 * 60_000);
  const overdue = await stranded(DAY_MS + 3600_000);
  const paid = await stranded(10 * 60_000, { orderStatus: 'paid' });
  const companySeat = await stranded(10 * 60_000, { orderStatus: 'paid' });
  // The payment that paid it while it had no run (the signal found nothing to signal).
  const [{ id: paymentId }] = await t.db.query<{ id: string }>(
    `insert into payments (order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint, paid_at, created_at, updated_at)
     select o.id, o.user_id, 'local_debit', 'mock', 'completed', o.total_amount_sar, 'SAR', gen_random_uuid()::text, repeat('f', 64), now(), now(), now()
       from orders o join activations a on a.order_id = o.id where a.id = $1 returning id`,
    [paid],
  );
  const companyId = randomUUID();
  await t.db.query('update orders set company_id = $2 where id = (select order_id from activations where id = $1)', [
    companySeat,
    companyId,
  ]);
  const withinGrace = await stranded(GRACE_MS / 2);
  const marked = await stranded(10 * 60_000, { markedStarted: true });
  const ended = await stranded(10 * 60_000, { status: 'cancelled', orderStatus: 'cancelled' });
  // Its run started, but the API died before marking the row.
  const unmarked = await stranded(10 * 60_000);
  await createActivationWorkflows(env.client, config).start({ activationId: unmarked, userId: 'u', orderId: 'o', simType: 'physical' });
  // Last, so that the setup does not eat the 8 s it has left.
  const almostDue = await stranded(DAY_MS - 8_000);

  const result = await recover();

  expect(result.started.sort()).toEqual([young, almostDue, paid, companySeat].sort());
  expect(result.cancelled).toEqual([overdue]);
  expect(result.found).toEqual([unmarked]);
  for (const id of [young, almostDue, paid, companySeat, overdue, unmarked]) expect((await rowOf(id)).marked).toBe(true);
  for (const id of [withinGrace, marked, ended]) expect(await hasRun(id)).toBe(false);
  expect((await rowOf(withinGrace)).marked).toBe(false);

  // Past its deadline: the workflow's own cancel path cancels it with its order, at once.
  expect(await env.client.workflow.getHandle(activationWorkflowId(overdue)).result()).toBe('cancelled');
  expect(await rowOf(overdue)).toMatchObject({ status: 'cancelled', order_status: 'cancelled' });
  // Its deadline still counts from its creation: 8 s were left.
  expect(await env.client.workflow.getHandle(activationWorkflowId(almostDue)).result()).toBe('cancelled');
  // The others wait for identity and payment as any new activation does; the paid one knows it is paid.
  expect(await env.client.workflow.getHandle(activationWorkflowId(young)).query(stateQuery)).toEqual({
    status: 'pending',
    identityStatus: 'waiting',
    paid: false,
  });
  expect((await env.client.workflow.getHandle(activationWorkflowId(paid)).query(stateQuery)).paid).toBe(true);
  // Runs are found by what they would carry had the API started them: the payment, a seat's company.
  expect(
    (await env.client.workflow.getHandle(activationWorkflowId(paid)).describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.PaymentId),
  ).toBe(paymentId);
  const seatRun = await env.client.workflow.getHandle(activationWorkflowId(companySeat)).describe();
  expect(seatRun.typedSearchAttributes.get(SEARCH_ATTRIBUTES.CompanyId)).toBe(companyId);
  expect(
    (await env.client.workflow.getHandle(activationWorkflowId(young)).describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.CompanyId),
  ).toBeUndefined();

  // Running it again changes nothing.
  expect(await recover()).toEqual({ started: [], cancelled: [], found: [] });
});

it('runs from its schedule: ensureSchedules creates it from the configuration, and a triggered run recovers a stranded row', async () => {
  expect(scheduleSpecs(config).map((s) => s.scheduleId)).toContain(ACTIVATION_RECOVERY_SCHEDULE_ID);
  const spec = activationRecoveryScheduleSpec({ ...config, ACTIVATION_RECOVERY_EVERY_SECONDS: 3600 });
  await ensureSchedules(env.client, [spec], { info: () => undefined });
  const described = await env.client.schedule.getHandle(ACTIVATION_RECOVERY_SCHEDULE_ID).describe();
  expect(described.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
  expect(described.action).toMatchObject({ workflowType: 'activationRecoveryWorkflow', taskQueue: config.TEMPORAL_TASK_QUEUE });

  const id = await stranded(5 * 60_000);
  await env.client.schedule.getHandle(ACTIVATION_RECOVERY_SCHEDULE_ID).trigger();
  await eventually(async () => expect(await hasRun(id)).toBe(true), 20_000);
  await eventually(async () => expect((await rowOf(id)).marked).toBe(true), 5_000);
});
