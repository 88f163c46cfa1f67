/**
 * Issue 20, end to end on the running stack (the compiled API and worker as real processes, the
 * Temporal dev server, PostgreSQL): "A Temporal outage of a minute then refuses no create, and every
 * run starts exactly once (an e2e test stops the dev server, creates, restarts, and counts runs)."
 *
 * The dev server is stopped; activations, a company registration and a quote are created over HTTP and
 * all answer 201 with their runs' starts pending; the server is started again on the same port and file;
 * the worker's start relay starts every run, and each entity has exactly one.
 *
 * Issue 32: verify-identity and payments answer truly while the server is away (the API starts the
 * verification at the provider and records it; the run hears of it and of the payment through the
 * signal relay once the server is back), and every run then activates.
 */
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { CONSENTS, eventually } from '../helpers/app';
import { DEMO } from '../helpers/activations';
import { insertPackage } from '../helpers/catalog';
import { insertCompany, joinCompany } from '../helpers/companies';
import { compiledProcesses, lastCode, mobileCall } from '../helpers/processes';
import { DIST, openStackFixture, startApi, type StackFixture } from '../helpers/stack';
import { demoIccid } from '../../src/cli/demo';

jest.setTimeout(240_000);

const processes = compiledProcesses(DIST);
/** How long the server stays away (the fault run: 10 s). */
const OUTAGE_MS = 10_000;
const ACTIVATIONS_PER_PERSON = 5;
let stack: StackFixture;
let baseUrl: string;

const api = <T = Record<string, unknown>>(method: string, route: string, body?: unknown, token?: string) =>
  mobileCall<T>(baseUrl, method, route, body, token);

beforeAll(async () => {
  stack = await openStackFixture('e2e-outage', { START_RELAY_MAX_BACKOFF_SECONDS: '2' });
  processes.start('worker/main.js', stack.common, 'worker');
  baseUrl = await startApi(stack, processes);
  // The worker polls once it has ensured its schedules: only then may the server go away (a worker that
  // cannot reach Temporal while it starts gives up).
  await eventually(async () => {
    await stack.env.client.schedule.getHandle('housekeeping-otp').describe();
  }, 60_000);
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

/** A person signed in through the API (OTP from the message file); `role` set with SQL. */
async function person(phone: string, role?: string): Promise<{ token: string; userId: string }> {
  const reg = await api<{ userId: string }>('POST', '/auth/register', { phone, name: 'Outage Test', consents: CONSENTS });
  expect(reg.status).toBe(201);
  const signed = await api<{ session: { token: string } }>('POST', '/auth/verify-otp', { phone, otp: lastCode(stack.messagesFile, phone) });
  if (role) await stack.db.query('update users set app_role = $2 where id = $1', [reg.body.userId, role]);
  return { token: signed.body.session.token, userId: reg.body.userId };
}

async function runsOf(workflowId: string): Promise<number> {
  const runs: string[] = [];
  for await (const run of stack.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run.runId);
  return runs.length;
}

it('refuses no create while the Temporal server is stopped, and starts exactly one run per entity once it is back', async () => {
  const consumers = [await person('+966512350001'), await person('+966512350002')];
  const registrant = await person('+966512350003', 'b2b_admin');
  const quoter = await person('+966512350004', 'b2b_admin');
  const companyId = await insertCompany(stack.db, 'approved');
  await joinCompany(stack.db, companyId, quoter.userId, 'admin');
  const packageId = await insertPackage(stack.db);

  await stack.stopTemporal();
  const stoppedAt = Date.now();
  const activationCreates = Promise.all(
    consumers.flatMap((c) =>
      Array.from({ length: ACTIVATIONS_PER_PERSON }, () =>
        api<{ activationId: string }>('POST', '/activations', { iccid: demoIccid(), packageId: DEMO.packages.starter }, c.token),
      ),
    ),
  );
  const registration = api<{ data: { company: { id: string } } }>(
    'POST',
    '/b2b/company',
    {
      inKsa: true,
      crNumber: String(7_000_000_000 + Math.floor(Math.random() * 999_999_999)),
      name: 'Outage Trading',
      contactName: 'Sara Ali',
      contactEmail: 'sara@outage.example',
      contactPhone: '+447700900555',
    },
    registrant.token,
  );
  const draft = api<{ data: { id: string } }>('POST', '/b2b/quotes', { items: [{ packageId, qty: 4 }] }, quoter.token);
  const [activations, company, quote] = await Promise.all([activationCreates, registration, draft]);
  expect([...activations, company, quote].map((res) => res.status)).toEqual([...activations, company, quote].map(() => 201));
  const workflowIds = [
    ...activations.map((res) => activationWorkflowId(res.body.activationId)),
    companyWorkflowId(company.body.data.company.id),
    quoteWorkflowId(quote.body.data.id),
  ];
  const pending = async () =>
    (await stack.db.query<{ workflow_id: string }>('select workflow_id from workflow_starts where started_at is null')).map(
      (r) => r.workflow_id,
    );
  expect((await pending()).sort()).toEqual([...workflowIds].sort());

  // The rest of the outage, then the same server again.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
  await stack.startTemporal();

  await eventually(async () => expect(await pending()).toEqual([]), 60_000);
  // Visibility follows the starts by a moment; then every entity has exactly one run.
  await eventually(async () => {
    const counts = await Promise.all(workflowIds.map(async (id) => [id, await runsOf(id)] as const));
    expect(counts).toEqual(workflowIds.map((id) => [id, 1]));
  }, 30_000);
  const [first] = activations;
  const described = await stack.env.client.workflow.getHandle(activationWorkflowId(first.body.activationId)).describe();
  expect(described.status.name).toBe('RUNNING');
  // Each request tried once and failed; the relay made each start (more tries while the server was away).
  expect(await stack.db.query(`select workflow_id from workflow_starts where attempts < 2`)).toEqual([]);
});

it('answers every verify-identity and payment truly while the Temporal server is stopped; once it is back, each run hears of them and activates', async () => {
  const people = [await person('+966512350011'), await person('+966512350012'), await person('+966512350013')];
  const created = await Promise.all(
    people.map((p) =>
      api<{ activationId: string; orderId: string }>(
        'POST',
        '/activations',
        { iccid: demoIccid(), packageId: DEMO.packages.starter },
        p.token,
      ),
    ),
  );
  expect(created.map((res) => res.status)).toEqual(people.map(() => 201));
  const startsMade = async () =>
    (await stack.db.query(`select 1 from workflow_starts where started_at is null`)).length === 0 &&
    (await stack.db.query(`select 1 from workflow_signals where delivered_at is null`)).length === 0;
  await eventually(async () => expect(await startsMade()).toBe(true), 60_000);

  await stack.stopTemporal();
  const stoppedAt = Date.now();
  // The person verifies (ids ending in 0: the mock provider completes them) and pays, with nothing but the provider and Postgres.
  const verified = await Promise.all(
    created.map((res, i) =>
      api(
        'POST',
        `/activations/${res.body.activationId}/verify-identity`,
        { identityType: 'citizen', idNumber: `10${i}4567890` },
        people[i].token,
      ),
    ),
  );
  expect(verified.map((res) => [res.status, res.body])).toEqual(
    verified.map(() => [200, { transId: expect.any(String) as string, randomCode: expect.any(String) as string, status: 'waiting' }]),
  );
  const paid = await Promise.all(
    created.map((res, i) =>
      api(
        'POST',
        '/payments/create-intent',
        { orderId: res.body.orderId, method: 'card_scheme_1', idempotencyKey: `outage-pay-${i}-${process.pid}` },
        people[i].token,
      ),
    ),
  );
  expect(paid.map((res) => [res.status, res.body.status])).toEqual(paid.map(() => [201, 'completed']));
  // A repeated request while the server is away gets the one verification it started.
  const again = await api(
    'POST',
    `/activations/${created[0].body.activationId}/verify-identity`,
    { identityType: 'citizen', idNumber: '1004567890' },
    people[0].token,
  );
  expect([again.status, again.body]).toEqual([200, verified[0].body]);
  const waiting = await stack.db.query<{ signal: string }>(`select signal from workflow_signals where delivered_at is null order by id`);
  expect(waiting.map((r) => r.signal).sort()).toEqual([...created.map(() => 'identityStarted'), ...created.map(() => 'orderPaid')].sort());

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
  await stack.startTemporal();
  const backAt = Date.now();

  await eventually(async () => {
    const rows = await stack.db.query<{ status: string }>(`select status from activations where id = any($1::uuid[])`, [
      created.map((res) => res.body.activationId),
    ]);
    expect(rows.map((r) => r.status)).toEqual(created.map(() => 'activated'));
  }, 90_000);
  // Each signal went once the server answered, and the runs polled the verification the API started: no update, no initiation in their histories.
  expect(await stack.db.query(`select 1 from workflow_signals where delivered_at is null`)).toEqual([]);
  for (const res of created) {
    const history = await stack.env.client.workflow.getHandle(activationWorkflowId(res.body.activationId)).fetchHistory();
    const events = history.events ?? [];
    expect(events.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'identityStarted')).toBe(true);
    expect(events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
    expect(events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'initiateIdentity')).toBe(false);
  }
  console.info(
    `verify-identity through a Temporal outage: ${created.length} runs activated ${Date.now() - backAt} ms after the server came back`,
  );
});
