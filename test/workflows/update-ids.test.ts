// Which calls Temporal treats as the same update: a run remembers every update id it accepted and
// answers a repeated id from memory, writing nothing. Issue 20: "Quote update ids are
// `action:X-Request-Id`: a client or proxy that repeats the header gets the earlier update's answer
// and nothing is written." Issue 32: "a retry joins the first". Update ids are derived on the server
// from the action (src/temporal/update.ts, actionUpdateId): the action, the state it applies to (the
// quote version acted on, the company after its n-th status change) and a digest of what the request
// says; never from a client header. The same request sent again (its answer lost) gets the first one's
// answer, written once; a different request, or the same one on a later state, is an update of its own.
// Through the routes, on the real quote and company runs (time-skipping server, real activities).
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createCompanyRuns } from '../../src/temporal/companies';
import { createQuoteRuns } from '../../src/temporal/quotes';
import { companyWorkflowId } from '../../workflows/company-contract';
import { quoteWorkflowId } from '../../workflows/quote-contract';
import { bearer, createTestApp, errorCode, eventually, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { registrationBody, signInAs, type Caller } from '../helpers/company-routes';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
let pkg: string;

beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  const taskQueue = uniqueTaskQueue('update-ids');
  const temporal = { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false };
  // The runs read the app's database when they are asked (it exists by then): a company's state, a finished chain.
  const db = {
    get db() {
      return t.db.sql;
    },
  };
  t = await createTestApp({
    deps: {
      companyRuns: createCompanyRuns(env.client, { ...temporal, LOG_LEVEL: 'silent' }, db),
      quoteRuns: createQuoteRuns(env.client, temporal, db),
    },
  });
  worker = await runTestWorker(env, {
    taskQueue,
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config, { messages: createMemoryMessageSender() }),
  });
  pkg = await insertPackage(t.db, { priceSarB2b: '49.50' });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});

/** The one X-Request-Id a client (or a proxy in front of it) repeats on every call. */
const REPEATED = 'same-request-id-01';

const post = (caller: Caller, path: string, body?: object) =>
  request(t.app).post(path).set(bearer(caller.token)).set('X-Request-Id', REPEATED).send(body);

/** The ids of the updates a workflow's runs accepted, oldest first (following continue-as-new back to the first run). */
async function acceptedUpdateIds(workflowId: string, runId?: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = history.events ?? [];
  const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  const ids = events.flatMap((e) => {
    const id = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    return id ? [id] : [];
  });
  return previous ? [...(await acceptedUpdateIds(workflowId, previous)), ...ids] : ids;
}

async function registeredAndApproved(manager: Caller) {
  const owner = await signInAs(t, 'b2b_admin');
  const registered = await request(t.app).post('/b2b/company').set(bearer(owner.token)).send(registrationBody());
  expect(registered.status).toBe(201);
  const companyId = (registered.body as { data: { company: { id: string } } }).data.company.id;
  const approved = await post(manager, `/admin/companies/${companyId}/status`, { action: 'approve' });
  expect([approved.status, (approved.body as { data: { status: string } }).data.status]).toEqual([200, 'approved']);
  return { owner, companyId };
}

/** A company-authored quote of `qty` of the package, submitted: the version's id. */
async function submittedQuote(owner: Caller, qty = 2): Promise<string> {
  const created = await post(owner, '/b2b/quotes', { items: [{ packageId: pkg, qty }] });
  expect(created.status).toBe(201);
  const id = (created.body as { data: { id: string } }).data.id;
  expect((await post(owner, `/b2b/quotes/${id}/submit`)).status).toBe(200);
  return id;
}

const versionsOf = (chainRootId: string) =>
  t.db.query<{ version: number; status: string }>('select version, status from quote_versions where chain_root_id = $1 order by version', [
    chainRootId,
  ]);

describe('quote actions', () => {
  it('the same action on two versions, sent with the same X-Request-Id, both take effect', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);

    const first = await post(manager, `/admin/quotes/${v1}/counter`, { items: [{ packageId: pkg, qty: 3 }] });
    expect([first.status, (first.body as { data: { version: number } }).data.version]).toEqual([200, 2]);
    const v2 = (first.body as { data: { id: string } }).data.id;

    // A second counter, on the version the first one made, with the same header: a new version 3.
    const second = await post(manager, `/admin/quotes/${v2}/counter`, { items: [{ packageId: pkg, qty: 4 }] });
    expect([second.status, (second.body as { data: { version: number; status: string } }).data]).toEqual([
      200,
      expect.objectContaining({ version: 3, status: 'under_review' }),
    ]);
    expect(await versionsOf(v1)).toEqual([
      { version: 1, status: 'countered' },
      { version: 2, status: 'countered' },
      { version: 3, status: 'under_review' },
    ]);
    // Named by the server: the action, the version it acted on, a digest of the request.
    const ids = await acceptedUpdateIds(quoteWorkflowId(v1));
    expect(ids).toEqual([
      expect.stringMatching(new RegExp(`^submit:${v1}:[0-9a-f]{16}$`)),
      expect.stringMatching(new RegExp(`^counter:${v1}:[0-9a-f]{16}$`)),
      expect.stringMatching(new RegExp(`^counter:${v2}:[0-9a-f]{16}$`)),
    ]);
    expect(ids.join(' ')).not.toContain(REPEATED);
  });

  it('a counter sent again (its answer lost) is answered as the first: the same new version, written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);
    const body = { items: [{ packageId: pkg, qty: 3 }], note: 'bulk price' };

    const first = await post(manager, `/admin/quotes/${v1}/counter`, body);
    expect([first.status, (first.body as { data: { version: number } }).data.version]).toEqual([200, 2]);
    // Sent as a new update this would be refused: version 1 is countered, no longer the tip.
    const again = await post(manager, `/admin/quotes/${v1}/counter`, body);
    expect([again.status, again.body]).toEqual([200, first.body]);

    expect(await versionsOf(v1)).toEqual([
      { version: 1, status: 'countered' },
      { version: 2, status: 'under_review' },
    ]);
    const counters = await t.db.query(
      `select 1 from audit_events where action = 'company.quote_counter' and details->>'chainRootId' = $1`,
      [v1],
    );
    expect(counters).toHaveLength(1);
    expect(await acceptedUpdateIds(quoteWorkflowId(v1))).toHaveLength(2); // submit, counter
  });

  it('a different counter of the same version is an update of its own: refused as the run refuses it, nothing written', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);

    expect((await post(manager, `/admin/quotes/${v1}/counter`, { items: [{ packageId: pkg, qty: 3 }] })).status).toBe(200);
    const other = await post(manager, `/admin/quotes/${v1}/counter`, { items: [{ packageId: pkg, qty: 5 }] });
    expect([other.status, errorCode(other)]).toEqual([409, 'QUOTE_INVALID_STATE']);
    expect(await versionsOf(v1)).toEqual([
      { version: 1, status: 'countered' },
      { version: 2, status: 'under_review' },
    ]);
  });

  it('a confirm sent again after the chain’s run completed is answered as the first: the same contract, one contract', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner, companyId } = await registeredAndApproved(manager);
    const mode = await request(t.app).patch('/b2b/company/payment-mode').set(bearer(owner.token)).send({ paymentMode: 'prepaid' });
    expect(mode.status).toBe(200);
    const v1 = await submittedQuote(owner);

    const first = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect(first.status).toBe(201);
    const run = env.client.workflow.getHandle(quoteWorkflowId(v1));
    await eventually(async () => expect((await run.describe()).status.name).toBe('COMPLETED'), 10_000);
    // Without the first's answer this would be CONTRACT_ALREADY_EXISTS (answered from the database).
    const again = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(await t.db.query('select id from contracts where company_id = $1', [companyId])).toHaveLength(1);
  });

  it('a refused confirm, sent again once its cause is gone, is judged anew and goes through', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner, companyId } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);

    // No payment mode yet: refused by the write, after the run accepted the update, so the run remembers this answer.
    const refused = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect([refused.status, errorCode(refused)]).toEqual([409, 'QUOTE_INVALID_STATE']);
    expect((await request(t.app).patch('/b2b/company/payment-mode').set(bearer(owner.token)).send({ paymentMode: 'prepaid' })).status).toBe(
      200,
    );
    const confirmed = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect(confirmed.status).toBe(201);
    expect(await t.db.query('select id from contracts where company_id = $1', [companyId])).toHaveLength(1);
    // The same request both times: the second went as the next id of the first one's chain.
    const [, refusedId, confirmedId] = await acceptedUpdateIds(quoteWorkflowId(v1));
    expect(refusedId).toMatch(new RegExp(`^confirmContract:${v1}:[0-9a-f]{16}$`));
    expect(confirmedId).toBe(`${refusedId}#1`);
  });
});

const statusChanges = (companyId: string) =>
  t.db.query<{ action: string }>(
    `select details->>'action' as action from audit_events where action = 'company.status_changed' and company_id = $1 order by created_at, id`,
    [companyId],
  );

describe('company status actions', () => {
  it('approve, suspend, reactivate and suspend again, all with the same X-Request-Id and body, all take effect', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);
    for (const [action, status] of [
      ['suspend', 'suspended'],
      ['reactivate', 'approved'],
      ['suspend', 'suspended'],
    ] as const) {
      const res = await post(manager, `/admin/companies/${companyId}/status`, { action });
      expect([action, res.status, (res.body as { data: { status: string } }).data.status]).toEqual([action, 200, status]);
    }
    // Named by the server: the action, the company after its n-th status change, a digest of the request.
    // The second suspend applies to a later state than the first: an update of its own.
    const ids = await acceptedUpdateIds(companyWorkflowId(companyId));
    expect(ids).toEqual(
      ['approve', 'suspend', 'reactivate', 'suspend'].map((action, n) =>
        expect.stringMatching(new RegExp(`^changeStatus:${action}:${companyId}@${n}:[0-9a-f]{16}$`)),
      ),
    );
    expect(ids.join(' ')).not.toContain(REPEATED);
  });

  it('a status action sent again (its answer lost) is answered as the first, written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);
    const body = { action: 'suspend', reason: 'unpaid invoices' };

    const first = await post(manager, `/admin/companies/${companyId}/status`, body);
    expect([first.status, (first.body as { data: { status: string } }).data.status]).toEqual([200, 'suspended']);
    // Sent as a new update this would be refused: a suspended company cannot be suspended.
    const again = await post(manager, `/admin/companies/${companyId}/status`, body);
    expect([again.status, again.body]).toEqual([200, first.body]);

    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);
    expect(await acceptedUpdateIds(companyWorkflowId(companyId))).toHaveLength(2);
  });

  it('the same action with another reason, or by another administrator, is an update of its own: the run refuses it', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const other = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);

    const first = await post(manager, `/admin/companies/${companyId}/status`, { action: 'suspend', reason: 'unpaid invoices' });
    expect(first.status).toBe(200);
    for (const [caller, reason] of [
      [manager, 'another reason'],
      [other, 'unpaid invoices'],
    ] as const) {
      const refused = await post(caller, `/admin/companies/${companyId}/status`, { action: 'suspend', reason });
      expect([refused.status, errorCode(refused), (refused.body as { error: { details: unknown } }).error.details]).toEqual([
        409,
        'COMPANY_INVALID_TRANSITION',
        { from: 'suspended', action: 'suspend' },
      ]);
    }
    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);
  });
});
