// A company's run is found by its CompanyId search attribute (set by createCompanyRuns), also after it
// continued as new. The Java time-skipping server has no visibility: this runs on the dev server. The
// activities are fakes: only the search attribute is under test here.
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { CompanyActivities } from '../../activities/companies';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { companyStateQuery, companyWorkflowId, type Readiness } from '../../workflows/contracts/company-contract';
import { companyOnboardingWorkflow } from '../../workflows/company-onboarding';
import { eventually } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { bundleWorkflows, createLocalEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

const READY: Readiness = { contractConfirmed: true, paymentSatisfied: true, rosterStaged: true, canSendLinks: true };

let env: TestWorkflowEnvironment;
let db: TestDatabase;

beforeAll(async () => {
  [env, db] = await Promise.all([createLocalEnv({ server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } }), createTestDatabase()]);
});
afterAll(async () => {
  await env?.teardown();
  await db?.drop();
});

async function runsOf(companyId: string): Promise<{ runId: string; status: string; companyId: string | undefined }[]> {
  const found = [];
  for await (const run of env.client.workflow.list({ query: `CompanyId = "${companyId}"` })) {
    found.push({ runId: run.runId, status: run.status.name, companyId: run.typedSearchAttributes.get(SEARCH_ATTRIBUTES.CompanyId) });
  }
  return found;
}

it('finds the run by CompanyId, and still finds the new run after continue-as-new', async () => {
  const taskQueue = uniqueTaskQueue('company-sa');
  const activities: Pick<CompanyActivities, 'companyReadiness' | 'companyNoticeDeliveries'> = {
    companyReadiness: () => Promise.resolve(READY),
    companyNoticeDeliveries: () => Promise.resolve([]),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows')),
    dataConverter: testDataConverter,
    activities,
  });
  await worker.runUntil(async () => {
    const companyId = randomUUID();
    const runs = createCompanyRuns(
      env.client,
      { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: true, LOG_LEVEL: 'silent' },
      { db: db.sql },
    );
    await runs.start(companyId);
    const handle = env.client.workflow.getHandle<typeof companyOnboardingWorkflow>(companyWorkflowId(companyId));
    const first = (await handle.describe()).runId;
    await eventually(async () => expect(await runsOf(companyId)).toEqual([{ runId: first, status: 'RUNNING', companyId }]), 10_000);

    // Continue-as-new on the dev server: signal a restarted run with a quota of 1 event.
    await handle.terminate('restart with a small quota');
    const restarted = await env.client.workflow.start(companyOnboardingWorkflow, {
      taskQueue,
      workflowId: companyWorkflowId(companyId),
      args: [{ companyId, status: 'approved', continueAsNewAfter: 1 }],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.CompanyId, value: companyId }],
    });
    await runs.readinessChanged(companyId, 'rosterStaged');
    await eventually(async () => expect((await handle.describe()).runId).not.toBe(restarted.firstExecutionRunId), 10_000);
    const latest = (await handle.describe()).runId;
    expect(await handle.query(companyStateQuery)).toMatchObject({ status: 'approved', readiness: READY, canSendLinksFlips: 1 });
    await eventually(async () => {
      const found = await runsOf(companyId);
      expect(found.find((run) => run.runId === latest)).toEqual({ runId: latest, status: 'RUNNING', companyId });
      expect(found.find((run) => run.runId === restarted.firstExecutionRunId)?.status).toBe('CONTINUED_AS_NEW');
    }, 10_000);
    await handle.terminate('test done');
  });
});

it('WORKFLOW_CONTINUE_AS_NEW_AFTER reaches the runs the API starts: one event, then a new run, which keeps the quota', async () => {
  const taskQueue = uniqueTaskQueue('company-can');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows')),
    dataConverter: testDataConverter,
    activities: { companyReadiness: () => Promise.resolve(READY), companyNoticeDeliveries: () => Promise.resolve([]) },
  });
  await worker.runUntil(async () => {
    const companyId = randomUUID();
    const runs = createCompanyRuns(
      env.client,
      { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: true, LOG_LEVEL: 'silent', WORKFLOW_CONTINUE_AS_NEW_AFTER: 1 },
      { db: db.sql },
    );
    await runs.start(companyId);
    const handle = env.client.workflow.getHandle<typeof companyOnboardingWorkflow>(companyWorkflowId(companyId));
    const first = (await handle.describe()).runId;
    await runs.readinessChanged(companyId, 'rosterStaged');
    await eventually(async () => expect((await handle.describe()).runId).not.toBe(first), 10_000);
    const second = (await handle.describe()).runId;
    await runs.readinessChanged(companyId, 'contractConfirmed');
    await eventually(async () => expect((await handle.describe()).runId).not.toBe(second), 10_000);
    expect(await handle.query(companyStateQuery)).toMatchObject({ status: 'pending', readiness: READY });
    await handle.terminate('test done');
  });
});
