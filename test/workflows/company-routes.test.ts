// The company routes through the real onboarding workflow (time-skipping server, real activities on
// the test app's database): registration starts the run, status actions are its updates, and a
// refused action comes back from the workflow as the spec's error. The routes' own rules are in
// test/api/companies.test.ts and test/api/admin-companies.test.ts with a fake run.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import type { z } from 'zod';
import type { CompanyResponse, RegisteredCompanyResponse } from '../../src/companies/schemas';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { companyStateQuery, companyWorkflowId } from '../../workflows/contracts/company-contract';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { registrationBody, signInAs } from '../helpers/company-routes';
import { realActivities } from '../helpers/real-activities';
import { errorOf, typed } from '../helpers/responses';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue, runTestWorker, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
const messages = createMemoryMessageSender();

beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  const taskQueue = uniqueTaskQueue('company-routes');
  t = await createTestApp({
    deps: {
      companyRuns: createCompanyRuns(
        env.client,
        { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false, LOG_LEVEL: 'silent' },
        // The status actions read the app's database (the company's state), which exists by then.
        {
          get db() {
            return t.db.sql;
          },
        },
      ),
    },
  });
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

const act = async (companyId: string, token: string, action: string, reason?: string) =>
  typed<z.infer<typeof CompanyResponse>>(
    await request(t.app).post(`/admin/companies/${companyId}/status`).set(bearer(token)).send({ action, reason }),
  );

it('registers a company with its run, then approves and suspends it through the run; a refused action is COMPANY_INVALID_TRANSITION', async () => {
  const owner = await signInAs(t, 'b2b_admin');
  const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });

  const registered = typed<z.infer<typeof RegisteredCompanyResponse>>(
    await request(t.app).post('/b2b/company').set(bearer(owner.token)).send(registrationBody()),
  );
  expect(registered.status).toBe(201);
  const companyId = registered.body.data.company.id;
  const run = env.client.workflow.getHandle(companyWorkflowId(companyId));
  expect((await run.query(companyStateQuery)).status).toBe('pending');

  const approved = await act(companyId, manager.token, 'approve', 'papers in order');
  expect(approved.status).toBe(200);
  expect(approved.body.data).toMatchObject({ id: companyId, status: 'approved', approvedBy: manager.userId });
  expect(approved.body.data.approvedAt).toEqual(expect.any(String));
  const audit = await t.db.query<{ actor_user_id: string; details: Record<string, unknown> }>(
    `select actor_user_id, details from audit_events where action = 'company.status_changed' and company_id = $1`,
    [companyId],
  );
  expect(audit).toEqual([{ actor_user_id: manager.userId, details: expect.objectContaining({ reason: 'papers in order' }) as unknown }]);
  expect((await request(t.app).get('/b2b/company').set(bearer(owner.token))).body).toMatchObject({
    data: { company: { status: 'approved' } },
  });

  const again = await act(companyId, manager.token, 'approve');
  expect([again.status, errorCode(again), errorOf(again).details]).toEqual([
    409,
    'COMPANY_INVALID_TRANSITION',
    { from: 'approved', action: 'approve' },
  ]);

  const suspended = await act(companyId, manager.token, 'suspend');
  expect([suspended.status, suspended.body.data.status]).toEqual([200, 'suspended']);
  expect((await run.query(companyStateQuery)).status).toBe('suspended');
  // Suspension revoked the members' live sessions.
  expect(errorCode(await request(t.app).get('/b2b/company').set(bearer(owner.token)))).toBe('AUTH_REQUIRED');
});
