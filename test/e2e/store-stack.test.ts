/**
 * The eSIM store end to end on the running stack: the compiled API and worker as real processes, the
 * Temporal dev server, PostgreSQL, the mock store and its signed HTTP callbacks, the message relay
 * writing the QR e-mail to the development messages file.
 *
 * 1. `npm run demo -- --store` (runStoreDemo): order → pay → issued, the QR e-mail in the messages file.
 * 2. The same with the worker killed (SIGKILL) between payment and placement: one placement, one issuance,
 *    one e-mail.
 * 3. A pending product completed by the mock's signed callback over HTTP (the poll is far away).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { runStoreDemo } from '../../src/cli/demo-store';
import { seedStoreStandIns } from '../../src/store/stand-ins';
import { productId } from '../helpers/store';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { CONSENTS, eventually } from '../helpers/app';
import type { TestDatabase } from '../helpers/db';
import { compiledProcesses, lastCode, mobileCall, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApi, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let env: TestWorkflowEnvironment;
let db: TestDatabase;
let worker: ChildProcess;
let baseUrl: string;
let messagesFile: string;

const startWorker = () =>
  (worker = processes.start('worker/main.js', { ...stack.common, MOCK_STORE_CALLBACK_URL: `${baseUrl}/webhooks/esim-provider` }, 'worker'));

beforeAll(async () => {
  stack = await openStackFixture('store-e2e', {
    FEATURE_ESIM_STORE: 'true',
    MOCK_STORE_CALLBACK_DELAY: '500ms',
    // Far away: an async order issued within the test came through the callback.
    STORE_ORDER_POLL_EVERY: '30m',
    MESSAGE_RELAY_POLL_SECONDS: '1',
  });
  ({ env, db, messagesFile } = stack);
  await db.sql.transaction((tx) => seedStoreStandIns(tx));
  baseUrl = await startApi(stack, processes);
  startWorker();
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

const api = <T = unknown>(method: string, route: string, body?: unknown, token?: string) =>
  mobileCall<T>(baseUrl, method, route, body, token);

/** The QR e-mails the development sender wrote to `to`. */
const qrMails = (to: string) =>
  readFileSync(messagesFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { to: string; purpose: string; text: string })
    .filter((m) => m.to === to && m.purpose === 'esim.qr');

async function buyer(): Promise<{ token: string; email: string; ackId: string }> {
  const email = `e2e-${randomUUID().slice(0, 8)}@example.com`;
  expect((await api('POST', '/auth/register', { email, name: 'Store Buyer', consents: CONSENTS })).status).toBe(201);
  const signedIn = await api<{ session: { token: string } }>('POST', '/auth/verify-otp', { email, otp: lastCode(messagesFile, email) });
  const token = signedIn.body.session.token;
  const ack = await api<{ data: { id: string } }>(
    'POST',
    '/store/device-acknowledgements',
    { deviceModel: 'E2E Phone', esimCompatible: true, carrierUnlocked: true },
    token,
  );
  return { token, email, ackId: ack.body.data.id };
}

async function order(b: { token: string; ackId: string }, sku: string): Promise<string> {
  const res = await api<{ data: { id: string } }>(
    'POST',
    '/store/orders',
    { productId: productId(sku), deviceAcknowledgementId: b.ackId },
    b.token,
  );
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const storeStatus = async (token: string, id: string) =>
  (await api<{ data: { status: string } }>('GET', `/store/orders/${id}`, undefined, token)).body.data.status;

it('walks `npm run demo -- --store`: browse in SAR, order, pay by card, issued, the QR, the QR e-mail', async () => {
  const lines: string[] = [];
  const result = await runStoreDemo({ baseUrl, messagesFile, log: (line) => lines.push(line) });
  expect([result.status, result.qrBytes > 100]).toEqual(['issued', true]);
  expect(lines.join('\n')).toMatch(/Done in [\d.]+s, \d+ requests: store order .* is issued/);
  const [mail] = qrMails(result.email);
  expect(mail.text).toContain('Your eSIM is ready');
  expect(mail.text).toContain('شريحتك الإلكترونية');
  expect(await db.query(`select currency, amount_minor::int as amount from payments where id = $1`, [result.paymentId])).toEqual([
    { currency: 'USD', amount: 1200 },
  ]);
});

it('issues once with one e-mail when the worker dies (SIGKILL) between payment and placement', async () => {
  const b = await buyer();
  const id = await order(b, 'MOCK-SYNC-AE-1GB');
  const handle = env.client.workflow.getHandle(storeOrderWorkflowId(id));
  await eventually(async () => expect((await handle.describe()).status.name).toBe('RUNNING'), 30_000);

  await stopProcess(worker, 'SIGKILL');
  const paid = await api<{ status: string }>(
    'POST',
    '/payments/create-intent',
    { orderId: id, method: 'card_scheme_1', idempotencyKey: randomUUID() },
    b.token,
  );
  expect(paid).toMatchObject({ status: 201, body: { status: 'completed' } });
  expect(await storeStatus(b.token, id)).toBe('paid');

  startWorker();
  expect(await handle.result()).toBe('issued');
  expect(await storeStatus(b.token, id)).toBe('issued');
  await eventually(() => expect(qrMails(b.email)).toHaveLength(1), 30_000);

  const events = (await handle.fetchHistory()).events ?? [];
  const { EventType } = temporal.api.enums.v1;
  const placements = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'placeStoreOrder');
  expect(placements).toHaveLength(1);
  const signals = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
  expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName)).toEqual(['storeOrderPaid']);
  // Stored history (not decoded): the activation code never appears in it.
  const [row] = await db.query<{ profile_encrypted: string }>(`select profile_encrypted from store_orders where id = $1`, [id]);
  expect(row.profile_encrypted).not.toContain('LPA:');
  expect(Buffer.from(temporal.api.history.v1.History.encode({ events }).finish()).includes('LPA:1$')).toBe(false);
});

it('completes a pending order through the mock provider’s signed callback over HTTP', async () => {
  const b = await buyer();
  const id = await order(b, 'MOCK-ASYNC-EG-3GB');
  expect(
    (await api('POST', '/payments/create-intent', { orderId: id, method: 'card_scheme_1', idempotencyKey: randomUUID() }, b.token)).status,
  ).toBe(201);
  expect(await env.client.workflow.getHandle(storeOrderWorkflowId(id)).result()).toBe('issued');
  expect(
    await db.query(`select outcome from webhook_events where provider = 'esim_provider' and event_id = $1`, [`${id}:completed`]),
  ).toEqual([{ outcome: 'enqueued' }]);
  await eventually(() => expect(qrMails(b.email)).toHaveLength(1), 30_000);
});
