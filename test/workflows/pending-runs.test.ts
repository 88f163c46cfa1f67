/**
 * Issue 20: "What clients see while a run is not started yet must stay sane". The routes on the real
 * workflows (time-skipping server, real activities): an activation, a company and a quote created while
 * the API's own start attempt fails, so each run's start is pending. Until the start relay makes it,
 * verify-identity answers IDENTITY_ERROR (its route's code), a company approve SERVICE_UNAVAILABLE (a
 * retryable error, never a 500) and a quote submit SERVICE_UNAVAILABLE; once the relay started the runs,
 * the same requests work.
 */
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { createSignalRelay } from '../../src/workflow-signals/relay';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import { activationStarter } from '../../src/activations/start';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/logger';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { createStoreOrderRuns } from '../../src/store/runs-temporal';
import { createQuoteRuns } from '../../src/quotes/runs-temporal';
import { workflowStarters } from '../../src/workflow-starts/kinds';
import { createStartRelay } from '../../src/workflow-starts/relay';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { seedCatalog } from '../helpers/activations';
import { signInAs } from '../helpers/company-routes';
import { createOneOfEach } from '../helpers/one-of-each';
import { call, type DetailBody } from '../helpers/quote-api';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
const taskQueue = uniqueTaskQueue('pending-runs');
/** While set, the API's own start attempts fail (as when Temporal is away at that instant); updates still go through. */
let refuseStarts = true;
const refused = () => Promise.reject(new Error('Temporal unavailable'));

/** The app's database for the runs: read when they are asked (a company's state, a finished chain), long after the app exists. */
const appDb = {
  get db() {
    return t.db.sql;
  },
};

/** The ports on the test server, as the API and the worker's relay build them. */
function ports(config: ReturnType<typeof loadConfig>) {
  const temporalConfig = { ...config, TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false };
  return {
    activations: createActivationRuns(env.client, temporalConfig),
    companies: createCompanyRuns(env.client, { ...temporalConfig, LOG_LEVEL: 'silent' }, appDb),
    quotes: createQuoteRuns(env.client, temporalConfig, appDb),
    storeOrders: createStoreOrderRuns(env.client, temporalConfig),
  };
}

beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  const api = ports(loadConfig({ NODE_ENV: 'test' }));
  t = await createTestApp({
    deps: {
      activationRuns: { ...api.activations, start: (a) => (refuseStarts ? refused() : api.activations.start(a)) },
      companyRuns: { ...api.companies, start: (id) => (refuseStarts ? refused() : api.companies.start(id)) },
      quoteRuns: { ...api.quotes, start: (input) => (refuseStarts ? refused() : api.quotes.start(input)) },
      signalSender: temporalSignalSender(env.client),
    },
  });
  await seedCatalog(t.db);
  worker = await runTestWorker(env, { taskQueue, workflowBundle: bundle, activities: realActivities(t.db, t.config) });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

/** The worker's start relay on the test server, made to run once over what is pending. */
async function relayStarts() {
  const real = ports(t.config);
  const relay = createStartRelay({
    db: t.db.sql,
    starters: workflowStarters({
      activation: activationStarter({ db: t.db.sql, runs: real.activations, config: t.config }),
      companies: real.companies,
      quotes: real.quotes,
      storeOrders: real.storeOrders,
    }),
    logger: createLogger('silent'),
    batchSize: 50,
    pollIntervalMs: 60_000,
    maxBackoffMs: 1_000,
  });
  return relay.drain();
}

it('answers the routes’ own codes while the runs are pending, and works once the relay has started them', async () => {
  const { activationId, companyId, quoteId, person, admin } = await createOneOfEach(t);
  const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });

  const verify = () =>
    request(t.app)
      .post(`/activations/${activationId}/verify-identity`)
      .set(bearer(person.token))
      .send({ identityType: 'citizen', idNumber: '1098765430' });
  const approve = () => request(t.app).post(`/admin/companies/${companyId}/status`).set(bearer(manager.token)).send({ action: 'approve' });
  const submit = () => call<DetailBody>(t, 'post', `/b2b/quotes/${quoteId}/submit`, { token: admin.token });

  // Verification needs no run (issue 32: its signal waits for the start); the status and quote actions do.
  const before = [await verify(), await approve(), await submit()];
  expect(before.map((res) => [res.status, errorCode(res)])).toEqual([
    [200, undefined],
    [503, 'SERVICE_UNAVAILABLE'],
    [503, 'SERVICE_UNAVAILABLE'],
  ]);
  expect(
    await t.db.query(`select signal, delivered_at from workflow_signals where workflow_id = $1`, [`activation:${activationId}`]),
  ).toEqual([{ signal: 'identityStarted', delivered_at: null }]);
  expect(await t.db.query(`select status from companies where id = $1`, [companyId])).toEqual([{ status: 'pending' }]);

  refuseStarts = false;
  expect(await relayStarts()).toEqual({ claimed: 3, started: 3, failed: 0 });

  const after = [await verify(), await approve(), await submit()];
  expect(after.map((res) => res.status)).toEqual([200, 200, 200]);
  // The repeated verification is the one it started; its signal goes once the run exists (the worker's signal relay).
  expect(after[0].body).toEqual(before[0].body);
  const signals = createSignalRelay({
    db: t.db.sql,
    send: temporalSignalSender(env.client),
    logger: createLogger('silent'),
    batchSize: 50,
    pollIntervalMs: 60_000,
    maxBackoffMs: 1_000,
  });
  expect(await signals.drain()).toMatchObject({ claimed: 1, signalled: 1 });
  expect(await t.db.query(`select status from companies where id = $1`, [companyId])).toEqual([{ status: 'approved' }]);
  expect(await t.db.query(`select status from quote_versions where id = $1`, [quoteId])).toEqual([{ status: 'submitted' }]);
});
