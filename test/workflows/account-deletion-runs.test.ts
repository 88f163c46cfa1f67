/**
 * An account's deletion ends the runs of what it cancelled (esim-store spec "Account deletion and
 * compliance": pending activations are cancelled, their runs end `cancelled`; open store orders are
 * cancelled), through the real Temporal client port on the time-skipping server, with the real
 * activities on the same database as the API.
 */
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createActivationRuns } from '../../src/temporal/activations';
import { createComplianceRuns } from '../../src/temporal/compliance';
import { createStoreOrderRuns } from '../../src/temporal/store-orders';
import { activationWorkflowId } from '../../workflows/activation-contract';
import { storeOrderWorkflowId } from '../../workflows/store-order-contract';
import { bearer, signUp, type TestApp } from '../helpers/app';
import { DEMO, iccid, seedCatalog } from '../helpers/activations';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp, productId } from '../helpers/store';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(60_000);

const taskQueue = uniqueTaskQueue('account-deletion');
let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: RunningTestWorker;

beforeAll(async () => {
  const [e, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  env = e;
  const config = { ...loadConfig({ NODE_ENV: 'test' }), TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false };
  t = await createStoreApp({
    deps: {
      activationRuns: createActivationRuns(env.client, config),
      storeOrderRuns: createStoreOrderRuns(env.client, config),
      complianceRuns: createComplianceRuns(env.client),
      signalSender: temporalSignalSender(env.client),
    },
  });
  await seedCatalog(t.db);
  worker = await runTestWorker(env, { taskQueue, workflowBundle: bundle, activities: realActivities(t.db, t.config), signals: t.db.sql });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await env?.teardown();
});

it('cancels the pending activation’s run (it ends cancelled, the row keeps ACCOUNT_DELETED) and the unpaid store order’s run', async () => {
  const person = await signUp(t);
  const created = await request(t.app)
    .post('/activations')
    .set(bearer(person.token))
    .send({ iccid: iccid(), packageId: DEMO.packages.starter });
  expect(created.status).toBe(201);
  const activationId = (created.body as { activationId: string }).activationId;
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(person.token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  const ordered = await request(t.app)
    .post('/store/orders')
    .set(bearer(person.token))
    .send({ productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: (ack.body as { data: { id: string } }).data.id });
  const storeOrderId = (ordered.body as { data: { id: string } }).data.id;
  const activationRun = env.client.workflow.getHandle(activationWorkflowId(activationId));
  const storeRun = env.client.workflow.getHandle(storeOrderWorkflowId(storeOrderId));
  // Both runs were started by the API and are waiting (identity and payment; payment).
  expect((await activationRun.describe()).status.name).toBe('RUNNING');
  expect((await storeRun.describe()).status.name).toBe('RUNNING');

  expect((await request(t.app).post('/auth/me/deletion-request').set(bearer(person.token))).status).toBe(202);

  for (const run of [activationRun, storeRun]) {
    const failure: unknown = await run.result().then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await run.describe()).status.name).toBe('CANCELLED');
  }
  const [activation] = await t.db.query<{ status: string; failed_reason: string }>(
    'select status, failed_reason from activations where id = $1',
    [activationId],
  );
  expect(activation).toEqual({ status: 'cancelled', failed_reason: 'ACCOUNT_DELETED' });
  const [store] = await t.db.query<{ status: string }>('select status from store_orders where id = $1', [storeOrderId]);
  expect(store.status).toBe('expired');
  expect(
    await t.db.query('select 1 from workflow_starts where workflow_id = any($1::text[])', [
      [`activation:${activationId}`, `store-order:${storeOrderId}`],
    ]),
  ).toEqual([]);
});
