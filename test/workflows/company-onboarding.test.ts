// The company onboarding workflow on the time-skipping server, driven through the API's client code
// (src/companies/runs-temporal.ts), with its real activities on a test database. Message delivery is a fake
// that can be told to fail; readiness is a fake the tests set (contract and payment gates are always
// false until contracts exist, so canSendLinks can only turn true through it), except in the test of
// the real readiness query.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createCompanyActivities } from '../../activities/companies';
import type { CompanyRuns } from '../../src/companies/runs';
import { loadConfig } from '../../src/config';
import { AppError } from '../../src/http/errors';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { MessageDeliveryError, type OutgoingMessage } from '../../src/providers/messages';
import { renderEmail, renderSms } from '../../src/providers/templates';
import { createCompanyRuns } from '../../src/companies/runs-temporal';
import { companyOnboardingWorkflow } from '../../workflows/company-onboarding';
import {
  COMPANY_ACTIONS,
  COMPANY_STATUS_VALUES,
  companyStateQuery,
  READINESS_RECHECK_MS,
  companyWorkflowId,
  transitionOf,
  type CompanyAction,
  type CompanyStatusValue,
  type Readiness,
  type StatusChangeRequest,
} from '../../workflows/contracts/company-contract';
import { eventually } from '../helpers/app';
import { insertCompany, insertUser, joinCompany } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { bundleWorkflows, createTimeSkippingEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(120_000);

const config = loadConfig({ NODE_ENV: 'test' });
const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
const NOT_READY: Readiness = { contractConfirmed: false, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };
const READY: Readiness = { contractConfirmed: true, paymentSatisfied: true, rosterStaged: true, canSendLinks: true };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let db: TestDatabase;
let worker: Worker;
let running: Promise<void>;
let runs: CompanyRuns;
let taskQueue: string;

/** What the fake sender was handed; `failing` makes every send fail (transiently). */
const sent: OutgoingMessage[] = [];
let failing = false;
/** The readiness the fake activity answers per company, and how often it was asked. */
const readiness = new Map<string, Readiness>();
const readinessReads = new Map<string, number>();
/** While set, the fake readiness activity waits for it (to pile signals up behind a read). */
let readinessGate: Promise<void> | undefined;

beforeAll(async () => {
  [env, bundle, db] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('../../workflows')),
    createTestDatabase(),
  ]);
  taskQueue = uniqueTaskQueue('company');
  const real = createCompanyActivities({
    db: db.sql,
    cipher,
    messages: {
      send(message) {
        if (failing) return Promise.reject(new MessageDeliveryError(message.channel, 'provider down', false));
        sent.push(message);
        return Promise.resolve();
      },
    },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities: {
      ...real,
      async companyReadiness({ companyId }: { companyId: string }): Promise<Readiness> {
        readinessReads.set(companyId, (readinessReads.get(companyId) ?? 0) + 1);
        await readinessGate;
        return readiness.get(companyId) ?? NOT_READY;
      },
    },
  });
  running = worker.run();
  runs = createCompanyRuns(
    env.client,
    { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_SEARCH_ATTRIBUTES: false, LOG_LEVEL: 'silent' },
    { db: db.sql },
  );
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await db?.drop();
});
beforeEach(() => {
  failing = false;
  sent.length = 0;
});

interface Fixture {
  companyId: string;
  admins: { id: string; email: string; phone: string }[];
  memberId: string;
  actorId: string;
}

let phoneSeq = 500_000_000 + Math.floor(Math.random() * 1_000_000) * 100;

/** A registered company (pending) with its run, two admins with e-mail and phone, and one read-only member. */
async function registered(): Promise<Fixture> {
  const companyId = await insertCompany(db, 'pending');
  const admins = [];
  for (const name of ['Admin One', 'Admin Two']) {
    const id = await insertUser(db, name, 'b2b_admin');
    const contact = { email: `${randomUUID()}@example.com`, phone: `+966${phoneSeq++}` };
    await db.query('update users set email_encrypted = $2, phone_encrypted = $3 where id = $1', [
      id,
      cipher.encrypt(contact.email),
      cipher.encrypt(contact.phone),
    ]);
    await joinCompany(db, companyId, id, 'admin');
    admins.push({ id, ...contact });
  }
  const memberId = await insertUser(db, 'Viewer', 'b2b_admin');
  await db.query('update users set email_encrypted = $2 where id = $1', [memberId, cipher.encrypt(`${randomUUID()}@example.com`)]);
  await joinCompany(db, companyId, memberId, 'member');
  const actorId = await insertUser(db, 'Reviewer', 'admin');
  await runs.start(companyId);
  return { companyId, admins, memberId, actorId };
}

const request = (f: Fixture, action: CompanyAction, reason: string | null = null): StatusChangeRequest => ({
  action,
  actorUserId: f.actorId,
  reason,
  ip: '203.0.113.7',
  userAgent: 'jest',
});

const companyRow = async (companyId: string) =>
  (
    await db.query<{ status: string; approved_by: string | null; approved_at: string | null }>(
      'select status, approved_by, approved_at from companies where id = $1',
      [companyId],
    )
  )[0];

const auditRows = (companyId: string) =>
  db.query<{
    action: string;
    actor_user_id: string;
    entity_type: string;
    entity_id: string;
    details: object;
    ip: string;
    user_agent: string;
  }>(
    `select action, actor_user_id, entity_type, entity_id, details, ip, user_agent from audit_events where company_id = $1 order by created_at, id`,
    [companyId],
  );

const state = (companyId: string) => env.client.workflow.getHandle(companyWorkflowId(companyId)).query(companyStateQuery);

const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

/** The shortest path of actions from pending to `status`. */
const PATH_TO: Record<CompanyStatusValue, CompanyAction[]> = {
  pending: [],
  approved: ['approve'],
  rejected: ['reject'],
  suspended: ['approve', 'suspend'],
};

async function companyAt(status: CompanyStatusValue): Promise<Fixture> {
  const f = await registered();
  for (const action of PATH_TO[status]) await runs.changeStatus(f.companyId, request(f, action));
  return f;
}

/** Messages of one notice purpose sent to one company's admins. */
const noticesTo = (f: Fixture, purpose?: string) =>
  sent.filter((m) => (!purpose || m.purpose === purpose) && f.admins.some((a) => a.email === m.to || a.phone === m.to));

describe('status changes', () => {
  it('approve: pending → approved, stamps approvedBy/approvedAt, one audit row, bilingual e-mail and SMS to each admin (not the viewer)', async () => {
    const f = await registered();
    expect(await runs.changeStatus(f.companyId, request(f, 'approve', 'documents checked'))).toEqual({ from: 'pending', to: 'approved' });

    const row = await companyRow(f.companyId);
    expect(row).toMatchObject({ status: 'approved', approved_by: f.actorId });
    expect(Date.now() - new Date(row.approved_at!).getTime()).toBeLessThan(60_000);
    expect(await auditRows(f.companyId)).toEqual([
      {
        action: 'company.status_changed',
        actor_user_id: f.actorId,
        entity_type: 'company',
        entity_id: f.companyId,
        details: { from: 'pending', to: 'approved', action: 'approve', reason: 'documents checked' },
        ip: '203.0.113.7',
        user_agent: 'jest',
      },
    ]);
    expect((await state(f.companyId)).status).toBe('approved');

    await eventually(() => expect(noticesTo(f, 'company.approved')).toHaveLength(4));
    const notices = noticesTo(f, 'company.approved');
    expect(notices.map((m) => [m.channel, m.to]).sort()).toEqual(
      f.admins.flatMap((a) => [['email', a.email] as const, ['sms', a.phone] as const]).sort(),
    );
    // Rendered by the real senders in English and Arabic.
    const email = renderEmail(notices.find((m) => m.channel === 'email')!);
    expect(email.subject).toMatch(/approved.*\|.*[\u0600-\u06FF]/);
    expect(email.text).toContain('Acme is approved');
    expect(email.text).toMatch(/[\u0600-\u06FF]/);
    expect(renderSms(notices.find((m) => m.channel === 'sms')!)).toMatch(/Acme is approved[\s\S]*\n[\s\S]*[\u0600-\u06FF]/);
    // "Bilingual e-mail and SMS": the text every sender is handed (the development file writes it) too.
    for (const m of notices) expect(m.text).toMatch(/Acme is approved[\s\S]*\n[\s\S]*[\u0600-\u06FF]/);
  });

  it('reject: pending → rejected, no stamp, no notice', async () => {
    const f = await registered();
    expect(await runs.changeStatus(f.companyId, request(f, 'reject', 'CR does not match'))).toEqual({ from: 'pending', to: 'rejected' });
    expect(await companyRow(f.companyId)).toEqual({ status: 'rejected', approved_by: null, approved_at: null });
    expect((await auditRows(f.companyId)).map((r) => r.details)).toEqual([
      { from: 'pending', to: 'rejected', action: 'reject', reason: 'CR does not match' },
    ]);
    await new Promise((r) => setTimeout(r, 500));
    expect(noticesTo(f)).toEqual([]);
  });

  it("suspend: approved → suspended, every live session of every member revoked (others' untouched); repeating the revocation changes nothing", async () => {
    const f = await companyAt('approved');
    const other = await registered();
    const session = async (userId: string, expiresInS: number, revoked = false) => {
      const id = randomUUID();
      await db.query(
        `insert into sessions (id, user_id, client_type, expires_at, revoked_at, created_at)
         values ($1, $2, 'web', now() + make_interval(secs => $3), $4, now())`,
        [id, userId, expiresInS, revoked ? new Date('2026-01-01T00:00:00Z') : null],
      );
      return id;
    };
    const live = [await session(f.admins[0].id, 3600), await session(f.admins[1].id, 3600), await session(f.memberId, 3600)];
    const expired = await session(f.memberId, -60);
    const earlier = await session(f.admins[0].id, 3600, true);
    const outsider = await session(other.admins[0].id, 3600);

    expect(await runs.changeStatus(f.companyId, request(f, 'suspend', 'unpaid invoices'))).toEqual({ from: 'approved', to: 'suspended' });

    const sessions = await db.query<{ id: string; revoked_at: string | null }>(
      `select id, to_char(revoked_at at time zone 'UTC', 'YYYY-MM-DD') as revoked_at from sessions where id = any($1)`,
      [[...live, expired, earlier, outsider]],
    );
    const revokedOn = new Map(sessions.map((s) => [s.id, s.revoked_at]));
    const today = new Date().toISOString().slice(0, 10);
    expect([...live, expired, earlier, outsider].map((id) => revokedOn.get(id))).toEqual([today, today, today, null, '2026-01-01', null]);
    expect(await companyRow(f.companyId)).toMatchObject({ status: 'suspended' });

    // Safe to repeat (a retried activity): nothing more is revoked.
    const activities = createCompanyActivities({ db: db.sql, cipher, messages: { send: () => Promise.resolve() } });
    expect(await activities.revokeCompanySessions({ companyId: f.companyId })).toEqual({ revoked: 0 });
  });

  it('reactivate: suspended → approved, approvedBy/approvedAt kept, no notice', async () => {
    const f = await companyAt('suspended');
    const before = await companyRow(f.companyId);
    await eventually(() => expect(noticesTo(f, 'company.approved')).toHaveLength(4));
    const otherAdmin = await insertUser(db, 'Second reviewer', 'admin');

    expect(await runs.changeStatus(f.companyId, { ...request(f, 'reactivate'), actorUserId: otherAdmin })).toEqual({
      from: 'suspended',
      to: 'approved',
    });
    expect(await companyRow(f.companyId)).toEqual({ status: 'approved', approved_by: before.approved_by, approved_at: before.approved_at });
    expect((await auditRows(f.companyId)).map((r) => [r.action, r.actor_user_id, (r.details as { action: string }).action])).toEqual([
      ['company.status_changed', f.actorId, 'approve'],
      ['company.status_changed', f.actorId, 'suspend'],
      ['company.status_changed', otherAdmin, 'reactivate'],
    ]);
    await new Promise((r) => setTimeout(r, 500));
    expect(noticesTo(f).map((m) => m.purpose)).toEqual(Array(4).fill('company.approved'));
  });

  const refused = COMPANY_STATUS_VALUES.flatMap((from) =>
    COMPANY_ACTIONS.filter((action) => transitionOf(from, action) === null).map((action) => [from, action] as const),
  );
  it.each(refused)('refuses %s + %s with COMPANY_INVALID_TRANSITION { from, action }, writing nothing', async (from, action) => {
    const f = await companyAt(from);
    const rowBefore = await companyRow(f.companyId);
    const auditBefore = await auditRows(f.companyId);

    const err = await caught(runs.changeStatus(f.companyId, request(f, action)));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'COMPANY_INVALID_TRANSITION', details: { from, action } });

    expect(await companyRow(f.companyId)).toEqual(rowBefore);
    expect(await auditRows(f.companyId)).toEqual(auditBefore);
    expect((await state(f.companyId)).status).toBe(from);
  });

  it('two administrators at once (approve and reject): exactly one wins, the other is refused, one audit row', async () => {
    const f = await registered();
    const results = await Promise.allSettled([
      runs.changeStatus(f.companyId, request(f, 'approve')),
      runs.changeStatus(f.companyId, request(f, 'reject')),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = won[0].value;
    expect(winner.from).toBe('pending');
    expect(lost[0].reason).toMatchObject({
      code: 'COMPANY_INVALID_TRANSITION',
      details: { from: winner.to, action: winner.to === 'approved' ? 'reject' : 'approve' },
    });
    expect((await companyRow(f.companyId)).status).toBe(winner.to);
    expect(await auditRows(f.companyId)).toHaveLength(1);
  });

  it('a repeated approve, sent after the first was answered, is judged afresh (test/workflows/update-ids.test.ts): refused, written once', async () => {
    const f = await registered();
    const req = request(f, 'approve');
    expect(await runs.changeStatus(f.companyId, req)).toEqual({ from: 'pending', to: 'approved' });
    await expect(runs.changeStatus(f.companyId, req)).rejects.toMatchObject({
      code: 'COMPANY_INVALID_TRANSITION',
      details: { from: 'approved', action: 'approve' },
    });
    expect(await auditRows(f.companyId)).toHaveLength(1);
  });

  it('an approval whose notice cannot be delivered is still approved (the run gives up after a few attempts and keeps running)', async () => {
    failing = true;
    const f = await registered();
    expect(await runs.changeStatus(f.companyId, request(f, 'approve'))).toEqual({ from: 'pending', to: 'approved' });
    await env.sleep(5 * 60_000); // past every retry of every message
    expect((await companyRow(f.companyId)).status).toBe('approved');
    expect(sent).toEqual([]);
    const handle = env.client.workflow.getHandle(companyWorkflowId(f.companyId));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // The run still works: the next action goes through.
    failing = false;
    expect(await runs.changeStatus(f.companyId, request(f, 'suspend'))).toEqual({ from: 'approved', to: 'suspended' });
  });
});

describe('readiness', () => {
  const signal = (companyId: string) => runs.readinessChanged(companyId, 'rosterStaged');
  const reads = (companyId: string) => readinessReads.get(companyId) ?? 0;

  async function settle(f: Fixture, value: Readiness) {
    readiness.set(f.companyId, value);
    const before = reads(f.companyId);
    await signal(f.companyId);
    await eventually(async () => {
      expect(reads(f.companyId)).toBeGreaterThan(before);
      expect((await state(f.companyId)).readiness).toEqual(value);
    });
  }

  it('sends the canSendLinks notice once per flip: false → true → false → true is two notices', async () => {
    const f = await companyAt('approved');
    await eventually(() => expect(noticesTo(f, 'company.approved')).toHaveLength(4));

    await settle(f, { ...NOT_READY, rosterStaged: true });
    await settle(f, READY);
    await eventually(() => expect(noticesTo(f, 'company.ready_to_send_links')).toHaveLength(4));
    await settle(f, READY); // still true: no new flip
    await settle(f, { ...READY, paymentSatisfied: false, canSendLinks: false });
    await settle(f, READY);
    await eventually(() => expect(noticesTo(f, 'company.ready_to_send_links')).toHaveLength(8));
    await new Promise((r) => setTimeout(r, 300));
    expect(noticesTo(f, 'company.ready_to_send_links')).toHaveLength(8);
    expect((await state(f.companyId)).canSendLinksFlips).toBe(2);

    const email = renderEmail(noticesTo(f, 'company.ready_to_send_links').find((m) => m.channel === 'email')!);
    expect(email.subject).toMatch(/invitation links.*\|.*[\u0600-\u06FF]/);
    expect(email.text).toMatch(/send invitation links[\s\S]*[\u0600-\u06FF]/);
    // "Bilingual e-mail and SMS", in the text every sender is handed as well.
    for (const m of noticesTo(f, 'company.ready_to_send_links'))
      expect(m.text).toMatch(/send invitation links[\s\S]*\n[\s\S]*[\u0600-\u06FF]/);
  });

  it('coalesces a burst of signals arriving during a read into one more read', async () => {
    const f = await registered();
    let release!: () => void;
    readinessGate = new Promise((resolve) => (release = resolve));
    try {
      await signal(f.companyId);
      await eventually(() => expect(reads(f.companyId)).toBe(1));
      for (let i = 0; i < 5; i++) await signal(f.companyId);
    } finally {
      release();
      readinessGate = undefined;
    }
    await eventually(() => expect(reads(f.companyId)).toBe(2));
    await new Promise((r) => setTimeout(r, 300));
    expect(reads(f.companyId)).toBe(2);
  });

  it('an approved company rereads readiness after READINESS_RECHECK_MS without a signal: a lost signal delays the notice, never loses it', async () => {
    const f = await companyAt('approved');
    await eventually(() => expect(noticesTo(f, 'company.approved')).toHaveLength(4));
    const before = reads(f.companyId);
    readiness.set(f.companyId, READY); // committed, but its signal never reached the run
    await env.sleep(READINESS_RECHECK_MS / 2);
    expect(reads(f.companyId)).toBe(before);
    await env.sleep(READINESS_RECHECK_MS);
    await eventually(() => expect(noticesTo(f, 'company.ready_to_send_links')).toHaveLength(4));
    expect(await state(f.companyId)).toMatchObject({ readiness: READY, canSendLinksFlips: 1 });
  });

  it('a readiness signal to a company with no run is logged and swallowed', async () => {
    await expect(signal(randomUUID())).resolves.toBeUndefined();
  });

  it('reads rosterStaged from roster_entries (the real query); contract and payment stay false until contracts exist', async () => {
    const activities = createCompanyActivities({ db: db.sql, cipher, messages: { send: () => Promise.resolve() } });
    const companyId = await insertCompany(db, 'approved');
    expect(await activities.companyReadiness({ companyId })).toEqual(NOT_READY);
    const userId = await insertUser(db, 'Staged person');
    await db.query(`insert into roster_entries (company_id, user_id, created_at, updated_at) values ($1, $2, now(), now())`, [
      companyId,
      userId,
    ]);
    expect(await activities.companyReadiness({ companyId })).toEqual({ ...NOT_READY, rosterStaged: true });
  });
});

describe('the run', () => {
  it('starting twice is one run (an existing run counts as started)', async () => {
    const f = await registered();
    const handle = env.client.workflow.getHandle(companyWorkflowId(f.companyId));
    const { runId } = await handle.describe();
    await runs.start(f.companyId);
    expect((await handle.describe()).runId).toBe(runId);
  });

  it('keeps its run through suspend and reactivate, so a retry of either can join it (STATUS_WAKE_PATCH); a repeat after the answer is refused', async () => {
    const f = await companyAt('approved');
    const handle = env.client.workflow.getHandle(companyWorkflowId(f.companyId));
    const { runId } = await handle.describe();
    for (const [action, from, to] of [
      ['suspend', 'approved', 'suspended'],
      ['reactivate', 'suspended', 'approved'],
    ] as const) {
      const req = request(f, action);
      expect(await runs.changeStatus(f.companyId, req)).toEqual({ from, to });
      await expect(runs.changeStatus(f.companyId, req)).rejects.toMatchObject({
        code: 'COMPANY_INVALID_TRANSITION',
        details: { from: to, action },
      });
    }
    expect((await handle.describe()).runId).toBe(runId);
    expect(await auditRows(f.companyId)).toHaveLength(3);
  });

  it('continues as new after its quota of events, keeping status, readiness and flips', async () => {
    const companyId = await insertCompany(db, 'pending');
    const actorId = await insertUser(db, 'Reviewer', 'admin');
    const f: Fixture = { companyId, admins: [], memberId: actorId, actorId };
    const handle = await env.client.workflow.start(companyOnboardingWorkflow, {
      taskQueue,
      workflowId: companyWorkflowId(companyId),
      args: [{ companyId, status: 'pending', continueAsNewAfter: 3 }],
    });
    const firstRun = handle.firstExecutionRunId;

    await runs.changeStatus(companyId, request(f, 'approve')); // 1 (+1 notice, with no admin to send to)
    readiness.set(companyId, READY);
    await runs.readinessChanged(companyId, 'rosterStaged'); // 3 (+1 notice) → continues as new
    await eventually(async () => expect((await handle.describe()).runId).not.toBe(firstRun), 10_000);

    expect(await state(companyId)).toEqual({ status: 'approved', readiness: READY, canSendLinksFlips: 1 });
    // The new run goes on from there: the next action is checked against the carried status.
    expect(await runs.changeStatus(companyId, request(f, 'suspend'))).toEqual({ from: 'approved', to: 'suspended' });
    const err = await caught(runs.changeStatus(companyId, request(f, 'approve')));
    expect(err).toMatchObject({ code: 'COMPANY_INVALID_TRANSITION', details: { from: 'suspended', action: 'approve' } });
    // A flip counted in an earlier run is not counted again.
    for (const value of [NOT_READY, READY]) {
      readiness.set(companyId, value);
      await runs.readinessChanged(companyId, 'rosterStaged');
      await eventually(async () => expect((await state(companyId)).readiness).toEqual(value), 10_000);
    }
    await eventually(async () => expect((await state(companyId)).canSendLinksFlips).toBe(2), 10_000);
  });
});

describe('runs recorded before STATUS_WAKE_PATCH', () => {
  it('replay without a nondeterminism error: a run woken by a suspend continued as new then, and still does', async () => {
    // Recorded with the workflow as it was before the patch: pending, approve (its notice), suspend, continued as new.
    const file = path.join(__dirname, 'fixtures', 'company-history-before-status-wake.json');
    const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history)).resolves.toBeUndefined();
  });
});
