// Which calls Temporal treats as the same update: a run remembers every update id it accepted and
// answers a repeated id from memory, writing nothing. Issue 20: "Quote update ids are
// `action:X-Request-Id`: a client or proxy that repeats the header gets the earlier update's answer
// and nothing is written." Issue 32: "a 'try again' after which the retried request gets the one
// result". Update ids are made on the server, never from a client header: an action's derived id (the
// action, the state it applies to: the quote version acted on, the company after its n-th status
// change; and a digest of what the request says: src/temporal/update.ts) and a uuid. A request takes a
// lease on its derived id; a retry after SERVICE_UNAVAILABLE, or after its process died, takes the
// expired lease over and joins the first update. Any other request is judged afresh and gets the
// spec's answer: a repeat after an answer, or a twin sent at the same time, is refused (409).
// Through the routes, on the real quote and company runs (time-skipping server, real activities).
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { createQuoteRuns } from '../../src/quotes/runs-temporal';
import { actionDerivedId } from '../../src/temporal/update';
import { changeStatusUpdate, companyWorkflowId } from '../../workflows/contracts/company-contract';
import { counterUpdate, quoteWorkflowId } from '../../workflows/contracts/quote-contract';
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

/** `<action>:<state>:<digest>:<uuid>`, the derived id given as `<action>:<state>`. */
const updateIdOf = (actionAndState: string) =>
  expect.stringMatching(new RegExp(`^${actionAndState}:[0-9a-f]{16}:[0-9a-f-]{36}$`)) as unknown;

/**
 * What a process that died mid-update leaves: its lease on the derived id, expired and unanswered, and
 * its update, which the run has applied. Answers that update's id.
 */
async function diedMidUpdate(derivedId: string, send: (updateId: string) => Promise<unknown>): Promise<string> {
  const updateId = `${derivedId}:${randomUUID()}`;
  await t.db.query(`insert into workflow_update_leases (derived_id, update_id, expires_at) values ($1, $2, now() - interval '1 second')`, [
    derivedId,
    updateId,
  ]);
  await send(updateId);
  return updateId;
}

const leasesLeft = () => t.db.query('select derived_id from workflow_update_leases');

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
    // Named by the server: the action, the version it acted on, a digest of the request, a uuid.
    const ids = await acceptedUpdateIds(quoteWorkflowId(v1));
    expect(ids).toEqual([updateIdOf(`submit:${v1}`), updateIdOf(`counter:${v1}`), updateIdOf(`counter:${v2}`)]);
    expect(ids.join(' ')).not.toContain(REPEATED);
  });

  it('a counter sent again after its answer is judged afresh: QUOTE_INVALID_STATE (the version is no longer current), written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);
    const body = { items: [{ packageId: pkg, qty: 3 }], note: 'bulk price' };

    const first = await post(manager, `/admin/quotes/${v1}/counter`, body);
    expect([first.status, (first.body as { data: { version: number } }).data.version]).toEqual([200, 2]);
    const again = await post(manager, `/admin/quotes/${v1}/counter`, body);
    expect([again.status, errorCode(again)]).toEqual([409, 'QUOTE_INVALID_STATE']);

    expect(await versionsOf(v1)).toEqual([
      { version: 1, status: 'countered' },
      { version: 2, status: 'under_review' },
    ]);
    expect(await acceptedUpdateIds(quoteWorkflowId(v1))).toHaveLength(2); // submit, counter (the repeat was refused before it entered history)
  });

  it('a counter retried after its process died mid-update joins that update: the one new version, written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);
    const items = [{ packageId: pkg, qty: 3 }];
    const note = 'bulk price';

    // The derived id as the server makes it (src/quotes/runs-temporal.ts): the request repeated must name it again.
    const derivedId = actionDerivedId({ action: 'counter', appliesTo: v1, body: { actor: manager.userId, items, note } });
    const run = env.client.workflow.getHandle(quoteWorkflowId(v1));
    const updateId = await diedMidUpdate(derivedId, (id) =>
      run.executeUpdate(counterUpdate, {
        args: [{ versionId: v1, actor: { userId: manager.userId, ip: null, userAgent: null }, items, note }],
        updateId: id,
      }),
    );
    const [, v2] = await versionsOf(v1);
    expect(v2).toEqual({ version: 2, status: 'under_review' });

    const retried = await post(manager, `/admin/quotes/${v1}/counter`, { items, note });
    expect([retried.status, (retried.body as { data: { version: number } }).data.version]).toEqual([200, 2]);
    expect(await versionsOf(v1)).toHaveLength(2);
    const counters = await t.db.query(
      `select 1 from audit_events where action = 'company.quote_counter' and details->>'chainRootId' = $1`,
      [v1],
    );
    expect(counters).toHaveLength(1);
    expect(await acceptedUpdateIds(quoteWorkflowId(v1))).toEqual([updateIdOf(`submit:${v1}`), updateId]);
    expect(await leasesLeft()).toEqual([]);
  });

  it('the same confirm sent five times at once: one contract (201), the other four CONTRACT_ALREADY_EXISTS', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner, companyId } = await registeredAndApproved(manager);
    const mode = await request(t.app).patch('/b2b/company/payment-mode').set(bearer(owner.token)).send({ paymentMode: 'prepaid' });
    expect(mode.status).toBe(200);
    const v1 = await submittedQuote(owner);

    const answers = await Promise.all(Array.from({ length: 5 }, () => post(manager, `/admin/quotes/${v1}/confirm-contract`)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map(errorCode)).toEqual(Array.from({ length: 4 }, () => 'CONTRACT_ALREADY_EXISTS'));
    expect(await t.db.query('select id from contracts where company_id = $1', [companyId])).toHaveLength(1);
    expect(await leasesLeft()).toEqual([]);
  });

  it('a confirm sent again after the chain’s run completed is CONTRACT_ALREADY_EXISTS, one contract', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner, companyId } = await registeredAndApproved(manager);
    const mode = await request(t.app).patch('/b2b/company/payment-mode').set(bearer(owner.token)).send({ paymentMode: 'prepaid' });
    expect(mode.status).toBe(200);
    const v1 = await submittedQuote(owner);

    const first = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect(first.status).toBe(201);
    const run = env.client.workflow.getHandle(quoteWorkflowId(v1));
    await eventually(async () => expect((await run.describe()).status.name).toBe('COMPLETED'), 10_000);
    const again = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect([again.status, errorCode(again)]).toEqual([409, 'CONTRACT_ALREADY_EXISTS']);
    expect(await t.db.query('select id from contracts where company_id = $1', [companyId])).toHaveLength(1);
  });

  it('a refused confirm, sent again once its cause is gone, is judged anew and goes through', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { owner, companyId } = await registeredAndApproved(manager);
    const v1 = await submittedQuote(owner);

    // No payment mode yet: refused by the write, after the run accepted the update (the run remembers that answer).
    const refused = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect([refused.status, errorCode(refused)]).toEqual([409, 'QUOTE_INVALID_STATE']);
    expect((await request(t.app).patch('/b2b/company/payment-mode').set(bearer(owner.token)).send({ paymentMode: 'prepaid' })).status).toBe(
      200,
    );
    const confirmed = await post(manager, `/admin/quotes/${v1}/confirm-contract`);
    expect(confirmed.status).toBe(201);
    expect(await t.db.query('select id from contracts where company_id = $1', [companyId])).toHaveLength(1);
    // The same request both times, the same derived id: the answer ended the first's lease, so the second was a new update.
    const [, refusedId, confirmedId] = await acceptedUpdateIds(quoteWorkflowId(v1));
    expect([refusedId, confirmedId]).toEqual([updateIdOf(`confirmContract:${v1}`), updateIdOf(`confirmContract:${v1}`)]);
    expect(confirmedId.slice(0, -37)).toBe(refusedId.slice(0, -37));
    expect(confirmedId).not.toBe(refusedId);
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
    // Named by the server: the action, the company after its n-th status change, a digest of the request, a uuid.
    const ids = await acceptedUpdateIds(companyWorkflowId(companyId));
    expect(ids).toEqual(
      ['approve', 'suspend', 'reactivate', 'suspend'].map((action, n) => updateIdOf(`changeStatus:${action}:${companyId}@${n}`)),
    );
    expect(ids.join(' ')).not.toContain(REPEATED);
  });

  it('a status action sent again after its answer, by the same administrator or another, is COMPANY_INVALID_TRANSITION; written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const other = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);
    const body = { action: 'suspend', reason: 'unpaid invoices' };

    const first = await post(manager, `/admin/companies/${companyId}/status`, body);
    expect([first.status, (first.body as { data: { status: string } }).data.status]).toEqual([200, 'suspended']);
    for (const caller of [manager, other]) {
      const refused = await post(caller, `/admin/companies/${companyId}/status`, body);
      expect([refused.status, errorCode(refused), (refused.body as { error: { details: unknown } }).error.details]).toEqual([
        409,
        'COMPANY_INVALID_TRANSITION',
        { from: 'suspended', action: 'suspend' },
      ]);
    }
    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);
    expect(await leasesLeft()).toEqual([]);
  });

  it('the same status action sent five times at once: one applies (200), the other four COMPANY_INVALID_TRANSITION', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);

    const body = { action: 'suspend', reason: 'unpaid invoices' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(manager, `/admin/companies/${companyId}/status`, body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map(errorCode)).toEqual(Array.from({ length: 4 }, () => 'COMPANY_INVALID_TRANSITION'));
    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);
  });

  it('a status action retried after its process died mid-update joins that update: 200, written once', async () => {
    const manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const { companyId } = await registeredAndApproved(manager);
    const reason = 'unpaid invoices';

    // The derived id as the server made it before the suspend (src/companies/runs-temporal.ts): after one change (the approve).
    // The retry, reading a suspended company after two, names the state before the change it may have made.
    const derivedId = actionDerivedId({
      action: 'changeStatus:suspend',
      appliesTo: `${companyId}@1`,
      body: { actor: manager.userId, reason },
    });
    const run = env.client.workflow.getHandle(companyWorkflowId(companyId));
    const updateId = await diedMidUpdate(derivedId, (id) =>
      run.executeUpdate(changeStatusUpdate, {
        args: [{ action: 'suspend', actorUserId: manager.userId, reason, ip: null, userAgent: null }],
        updateId: id,
      }),
    );
    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);

    const retried = await post(manager, `/admin/companies/${companyId}/status`, { action: 'suspend', reason });
    expect([retried.status, (retried.body as { data: { status: string } }).data.status]).toEqual([200, 'suspended']);
    expect(await statusChanges(companyId)).toEqual([{ action: 'approve' }, { action: 'suspend' }]);
    expect(await acceptedUpdateIds(companyWorkflowId(companyId))).toEqual([updateIdOf(`changeStatus:approve:${companyId}@0`), updateId]);
    expect(await leasesLeft()).toEqual([]);
  });
});
