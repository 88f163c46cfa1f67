/**
 * The store order workflow (`store-order:<orderId>`, esim-store spec "States") on the time-skipping
 * server, driven through the real API (order, payment, the eSIM provider webhook, requeue) with the real
 * activities on the same database: every timer (payment TTL, delivery deadline, poll) is skipped, never
 * waited for; callbacks before, during and after placement, twice, and for an unknown order; 50 parallel
 * payments and callbacks give one placement, one issuance and one e-mail.
 */
import type { SignalSender } from '../../src/workflow-signals/kinds';
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { randomUUID } from 'node:crypto';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { createMockStoreProvider, mockProfile } from '../../src/store/providers/mock';
import { StoreProviderRegistry, type StoreProviderPlugin } from '../../src/store/providers/plugin';
import { createStoreOrderRuns } from '../../src/store/runs-temporal';
import { storeOrderStateQuery, storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { bearer, eventually, signUp, type TestApp } from '../helpers/app';
import { signInAs } from '../helpers/company-routes';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp, productId } from '../helpers/store';
import { esimCallback } from '../helpers/webhooks';
import {
  bundleWorkflows,
  createTimeSkippingEnv,
  runTestWorker,
  testDataConverter,
  uniqueTaskQueue,
  type RunningTestWorker,
} from '../helpers/temporal';

jest.setTimeout(120_000);

const taskQueue = uniqueTaskQueue('store-order');

/** The mock provider's clock (pending orders complete `delay` after placement by it), a gate to hold placements at, and what it was asked. */
const mock = { nowMs: Date.now(), hold: undefined as Promise<void> | undefined, placements: 0, answered: 0, cancels: [] as string[] };
const DELAY = 2_000;

function counted(plugin: StoreProviderPlugin): StoreProviderPlugin {
  return {
    ...plugin,
    async placeOrder(orderId, sku) {
      mock.placements += 1;
      if (mock.hold) await mock.hold;
      try {
        return await plugin.placeOrder(orderId, sku);
      } finally {
        mock.answered += 1;
      }
    },
    cancelOrder(orderId) {
      mock.cancels.push(orderId);
      return plugin.cancelOrder!(orderId);
    },
  };
}
const registry = new StoreProviderRegistry([
  counted(createMockStoreProvider('mock-store', { callbackDelayMs: DELAY, now: () => mock.nowMs })),
  createMockStoreProvider('mock-store-lite'),
  createMockStoreProvider('mock-store-external'),
]);

/** While `away`, the API's own attempt at a signal fails (Temporal does not take it); the worker's signal relay still sends it. */
const api = { away: false };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: RunningTestWorker;
let buyer: { token: string; userId: string };
let ackId: string;

beforeAll(async () => {
  const [e, b] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows(require.resolve('../../workflows'))]);
  env = e;
  bundle = b;
  // The API's configuration starts the runs: their first start, and a requeue's new run.
  const runsEnv = {
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_SEARCH_ATTRIBUTES: 'false',
    STORE_ORDER_PAYMENT_TTL: '30m',
    STORE_DELIVERY_DEADLINE: '70m',
    STORE_ORDER_POLL_EVERY: '2m',
  };
  const runs = createStoreOrderRuns(env.client, loadConfig({ NODE_ENV: 'test', ...runsEnv }));
  const sender = temporalSignalSender(env.client);
  const signalSender: SignalSender = (signal) => (api.away ? Promise.reject(new Error('Temporal unavailable')) : sender(signal));
  t = await createStoreApp({ env: runsEnv, deps: { storeOrderRuns: runs, storeProviders: registry, signalSender } });
  worker = await runTestWorker(env, {
    taskQueue,
    workflowBundle: b,
    activities: realActivities(t.db, t.config, { clock: () => new Date(), storeProviders: registry }),
    signals: t.db.sql,
  });
  buyer = await signUp(t, { email: `wf-buyer-${process.pid}@example.com` });
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(buyer.token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  ackId = (ack.body as { data: { id: string } }).data.id;
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await env?.teardown();
});
beforeEach(() => {
  mock.nowMs = Date.now();
  mock.hold = undefined;
  mock.placements = 0;
  mock.answered = 0;
  mock.cancels = [];
  api.away = false;
});

async function order(sku: string): Promise<string> {
  const res = await request(t.app)
    .post('/store/orders')
    .set(bearer(buyer.token))
    .send({ productId: productId(sku), deviceAcknowledgementId: ackId });
  expect(res.status).toBe(201);
  return (res.body as { data: { id: string } }).data.id;
}
const pay = (orderId: string) =>
  request(t.app)
    .post('/payments/create-intent')
    .set(bearer(buyer.token))
    .send({ orderId, method: 'card_scheme_1', idempotencyKey: `key-${randomUUID()}` });
const callback = (orderId: string) => request(t.app).post('/webhooks/esim-provider').send(esimCallback(orderId));
const handle = (orderId: string) => env.client.workflow.getHandle(storeOrderWorkflowId(orderId));
const result = (orderId: string) => handle(orderId).result() as Promise<string>;
const row = async (orderId: string) =>
  (
    await t.db.query<{ status: string; failure_reason: string | null; profile_encrypted: string | null }>(
      `select status, failure_reason, profile_encrypted from store_orders where id = $1`,
      [orderId],
    )
  )[0];
const qrEmails = async () =>
  (await t.db.query<{ n: number }>(`select count(*)::int as n from message_outbox where purpose = 'esim.qr'`))[0].n;
const refundRecords = (orderId: string) =>
  t.db.query<{ code: string }>(`select code from reconciliation_records where order_id = $1`, [orderId]);
/** The summary of each timer the run started, decoded as the UI's codec server would. */
async function timerSummaries(orderId: string): Promise<unknown[]> {
  const { events } = await handle(orderId).fetchHistory();
  const summaries = (events ?? []).filter((e) => e.timerStartedEventAttributes).map((e) => e.userMetadata?.summary ?? null);
  return Promise.all(
    summaries.map(async (payload) => {
      if (!payload) return null;
      let decoded = payload;
      for (const codec of [...(testDataConverter.payloadCodecs ?? [])].reverse()) [decoded] = await codec.decode([decoded]);
      return defaultPayloadConverter.fromPayload(decoded);
    }),
  );
}
const status = async (orderId: string, wanted: string) => eventually(async () => expect((await row(orderId)).status).toBe(wanted), 20_000);

describe('a synchronous product', () => {
  it('paid → provisioning → issued: the profile stored encrypted, one QR e-mail queued (both languages), no activation code in history', async () => {
    const emailsBefore = await qrEmails();
    const id = await order('MOCK-SYNC-SA-5GB');
    expect((await pay(id)).status).toBe(201);
    expect(await result(id)).toBe('issued');
    const stored = await row(id);
    const profile = mockProfile(id);
    expect(stored.status).toBe('issued');
    expect(stored.profile_encrypted).not.toContain(profile.matchingId);
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    expect(JSON.parse(cipher.decrypt(stored.profile_encrypted!))).toEqual(profile);
    expect(await qrEmails()).toBe(emailsBefore + 1);
    const [mail] = await t.db.query<{ payload_encrypted: string }>(
      `select payload_encrypted from message_outbox where purpose = 'esim.qr' order by id desc limit 1`,
    );
    const message = JSON.parse(cipher.decrypt(mail.payload_encrypted)) as { to: string; text: string; content: { kind: string } };
    expect(message.to).toBe(`wf-buyer-${process.pid}@example.com`);
    expect(message.content.kind).toBe('esim_ready');
    expect(message.text).toContain(profile.activationCodeRaw);
    expect(message.text).toContain('شريحتك الإلكترونية');
    const history = JSON.stringify(await handle(id).fetchHistory());
    expect(history).not.toContain(profile.matchingId);
  });

  it('a provider that fails once is retried, then issues', async () => {
    const id = await order('MOCK-FAILONCE-GB-2GB');
    await pay(id);
    expect(await result(id)).toBe('issued');
    expect(mock.placements).toBe(2);
  });

  it('a permanent refusal ends `failed` with its reconciliation record (paid, not issued: refund due)', async () => {
    const id = await order('MOCK-REJECT-US-1GB');
    await pay(id);
    expect(await result(id)).toBe('failed');
    expect((await row(id)).failure_reason).toBe('mock provider: order refused');
    expect(await refundRecords(id)).toEqual([{ code: 'PAYMENT_REFUND_REQUIRED' }]);
  });
});

describe('timers', () => {
  it('an order unpaid after STORE_ORDER_PAYMENT_TTL expires and can no longer be paid', async () => {
    const id = await order('MOCK-SYNC-AE-1GB');
    expect(await result(id)).toBe('expired');
    expect(await t.db.query(`select status from orders where id = $1`, [id])).toEqual([{ status: 'cancelled' }]);
    const late = await pay(id);
    expect(late.status).toBe(402);
  });

  it('the run’s own poll issues a pending order without any callback', async () => {
    const id = await order('MOCK-ASYNC-EG-3GB');
    await pay(id);
    await status(id, 'awaiting_provider');
    mock.nowMs += DELAY;
    expect(await result(id)).toBe('issued');
    const state = await handle(id).query(storeOrderStateQuery);
    expect([state.callbacks, state.reconciliations >= 1]).toEqual([0, true]);
    // What an operator reads on each timer in the Temporal UI (a timer without a summary shows only its id and length).
    expect(new Set(await timerSummaries(id))).toEqual(
      new Set(['payment wait: check paid, or expire at TTL', 'provider poll: read the order']),
    );
  });

  it('no profile by STORE_DELIVERY_DEADLINE: `failed` with the refund record; a requeue then issues it', async () => {
    const id = await order('MOCK-KYC-SA-10GB');
    await pay(id);
    expect(await result(id)).toBe('failed');
    expect((await row(id)).failure_reason).toBe('STORE_DELIVERY_DEADLINE');
    expect(await refundRecords(id)).toEqual([{ code: 'PAYMENT_REFUND_REQUIRED' }]);
    // The provider completes later; staff requeue the failed order: a new run reads it back and issues it.
    mock.nowMs += DELAY;
    const manager = await signInAs(t, 'admin', { view: ['store'], manage: ['store'] });
    const requeued = await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token));
    expect(requeued.status).toBe(202);
    expect(await result(id)).toBe('issued');
    expect(mock.placements).toBe(1);
    // The refund the failure owed was closed by the requeue: the order was delivered after all.
    expect(
      await t.db.query(`select resolved_by_id from reconciliation_records where order_id = $1 and resolved_at is not null`, [id]),
    ).toEqual([{ resolved_by_id: manager.userId }]);
  });

  it('a requeue the API could not tell Temporal: 202 `provisioning` all the same; the signal relay starts the finished order’s run again', async () => {
    const id = await order('MOCK-KYC-SA-10GB');
    await pay(id);
    expect(await result(id)).toBe('failed');
    mock.nowMs += DELAY;
    const manager = await signInAs(t, 'admin', { view: ['store'], manage: ['store'] });
    api.away = true;
    const requeued = await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token));
    expect([requeued.status, (requeued.body as { data: { status: string } }).data.status]).toEqual([202, 'provisioning']);
    // The API's attempt failed (one attempt counted); the relay's took it.
    await eventually(async () => {
      const rows = await t.db.query(`select outcome, attempts from workflow_signals where workflow_id = $1 and signal = 'requeue'`, [
        storeOrderWorkflowId(id),
      ]);
      expect(rows).toEqual([{ outcome: 'signalled', attempts: 2 }]);
    }, 20_000);
    expect(await result(id)).toBe('issued');
  });
});

describe('provider callbacks', () => {
  it('before placement (while unpaid): remembered, and the order read as soon as the placement answers pending', async () => {
    const id = await order('MOCK-ASYNC-EG-3GB');
    expect((await callback(id)).status).toBe(200);
    await pay(id);
    await status(id, 'awaiting_provider');
    // Read once right after the placement, before any poll (time is not skipped meanwhile).
    await eventually(async () => expect((await handle(id).query(storeOrderStateQuery)).reconciliations).toBe(1), 20_000);
    mock.nowMs += DELAY;
    expect(await result(id)).toBe('issued');
    expect((await handle(id).query(storeOrderStateQuery)).callbacks).toBe(1);
  });

  it('during placement: read as soon as the placement answers pending', async () => {
    let release!: () => void;
    mock.hold = new Promise<void>((resolve) => (release = resolve));
    const id = await order('MOCK-ASYNC-EG-3GB');
    await pay(id);
    await eventually(() => expect(mock.placements).toBe(1), 20_000);
    expect((await row(id)).status).toBe('provisioning');
    expect((await callback(id)).status).toBe(200);
    await eventually(async () => expect((await handle(id).query(storeOrderStateQuery)).callbacks).toBe(1), 20_000);
    release();
    await eventually(async () => expect((await handle(id).query(storeOrderStateQuery)).reconciliations).toBe(1), 20_000);
    mock.nowMs += DELAY;
    expect(await result(id)).toBe('issued');
  });

  it('while awaiting the provider, twice: one issuance, one e-mail; after issuance and for an unknown order nothing changes', async () => {
    const id = await order('MOCK-ASYNC-EG-3GB');
    await pay(id);
    await status(id, 'awaiting_provider');
    const before = await qrEmails();
    mock.nowMs += DELAY;
    const [a, b] = await Promise.all([callback(id), callback(id)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await result(id)).toBe('issued');
    expect(await qrEmails()).toBe(before + 1);
    const late = await request(t.app)
      .post('/webhooks/esim-provider')
      .send(esimCallback(id, { status: 'failed' }));
    expect(late.status).toBe(200);
    expect((await row(id)).status).toBe('issued');
    expect((await callback(randomUUID())).status).toBe(200);
    expect(await qrEmails()).toBe(before + 1);
  });
});

describe('concurrency', () => {
  it('50 parallel payments and callbacks for one order: one placement, one issuance, one e-mail', async () => {
    const id = await order('MOCK-ASYNC-EG-3GB');
    const before = await qrEmails();
    const answers = await Promise.all([
      ...Array.from({ length: 50 }, () => pay(id)),
      ...Array.from({ length: 50 }, (_, i) =>
        request(t.app)
          .post('/webhooks/esim-provider')
          .send(esimCallback(id, { extra: { eventId: `evt-${i}` } })),
      ),
    ]);
    expect(answers.filter((res) => res.status >= 500).map((res) => [res.status, JSON.stringify(res.body)])).toEqual([]);
    await status(id, 'awaiting_provider');
    mock.nowMs += DELAY;
    // And 50 more callbacks once the provider completed it, racing the run's reads.
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        callback(id).then(
          (res) => expect(res.status).toBe(200),
          () => i,
        ),
      ),
    );
    expect(await result(id)).toBe('issued');
    expect(await t.db.query(`select count(*)::int as n from payments where order_id = $1 and status = 'completed'`, [id])).toEqual([
      { n: 1 },
    ]);
    expect(mock.placements).toBe(1);
    expect(await qrEmails()).toBe(before + 1);
  });
});

describe('the buyer’s account deleted while the order is paid and not issued (esim-store spec: open store orders are cancelled)', () => {
  /** A buyer of their own (the deletion ends the account), with an e-mail for the QR and an acknowledgement. */
  async function leavingBuyer() {
    const person = await signUp(t, { email: `wf-leaving-${randomUUID()}@example.com` });
    const ack = await request(t.app)
      .post('/store/device-acknowledgements')
      .set(bearer(person.token))
      .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
    return { token: person.token, ackId: (ack.body as { data: { id: string } }).data.id };
  }
  async function paidOrder(buyer: { token: string; ackId: string }, sku: string): Promise<string> {
    const res = await request(t.app)
      .post('/store/orders')
      .set(bearer(buyer.token))
      .send({ productId: productId(sku), deviceAcknowledgementId: buyer.ackId });
    const id = (res.body as { data: { id: string } }).data.id;
    const paid = await request(t.app)
      .post('/payments/create-intent')
      .set(bearer(buyer.token))
      .send({ orderId: id, method: 'card_scheme_1', idempotencyKey: `key-${randomUUID()}` });
    expect(paid.status).toBe(201);
    return id;
  }
  const deleteAccount = (token: string) => request(t.app).post('/auth/me/deletion-request').set(bearer(token));
  /** The run ends Cancelled (the deletion's cancellation, not its own end). */
  async function expectCancelled(orderId: string): Promise<void> {
    const failure: unknown = await result(orderId).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  }
  const failedForDeletion = { status: 'failed', failure_reason: 'ACCOUNT_DELETED', profile_encrypted: null };

  it('awaiting_provider: `failed` ACCOUNT_DELETED with its refund record, the run cancelled, the provider order cancelled; a later callback issues nothing, no QR e-mail', async () => {
    const buyer = await leavingBuyer();
    const id = await paidOrder(buyer, 'MOCK-ASYNC-EG-3GB');
    await status(id, 'awaiting_provider');
    const emails = await qrEmails();

    expect((await deleteAccount(buyer.token)).status).toBe(202);
    expect(await row(id)).toEqual(failedForDeletion);
    expect(await refundRecords(id)).toEqual([{ code: 'PAYMENT_REFUND_REQUIRED' }]);
    await expectCancelled(id);
    // On its way out the run withdrew the order at the provider, which will not complete it now.
    expect(mock.cancels).toEqual([id]);
    mock.nowMs += DELAY;
    expect(await registry.get('mock-store')!.getOrder(id)).toEqual({ status: 'failed', reason: 'mock provider: order cancelled' });
    expect((await callback(id)).status).toBe(200);
    expect(await row(id)).toEqual(failedForDeletion);
    expect(await qrEmails()).toBe(emails);
  });

  /** Lets a held placement go (also when a test failed before it did: the worker waits for its activities to stop). */
  let release = () => {};
  afterEach(() => release());

  it('a placement that answers after the deletion stores no profile and queues no QR e-mail (the order is withdrawn again)', async () => {
    mock.hold = new Promise<void>((resolve) => (release = resolve));
    const buyer = await leavingBuyer();
    const id = await paidOrder(buyer, 'MOCK-SYNC-SA-5GB');
    await eventually(() => expect(mock.placements).toBe(1), 20_000);
    expect((await row(id)).status).toBe('provisioning');
    const emails = await qrEmails();

    expect((await deleteAccount(buyer.token)).status).toBe(202);
    expect(await row(id)).toEqual(failedForDeletion);
    await expectCancelled(id);
    // The provider issues the held placement now; the activity finds the order failed under its lock.
    release();
    await eventually(() => expect([mock.answered, mock.cancels]).toEqual([1, [id, id]]), 20_000);
    expect(await row(id)).toEqual(failedForDeletion);
    expect(await refundRecords(id)).toEqual([{ code: 'PAYMENT_REFUND_REQUIRED' }]);
    expect(await qrEmails()).toBe(emails);
  });
});

it('a run cancelled before the withdrawal existed replays with today’s code (the patch keeps its path)', async () => {
  // Recorded with the workflow as it was before: cancelled while waiting for its payment.
  const file = path.join(__dirname, 'fixtures', 'store-order-history-cancelled-before-withdraw.json');
  const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
  await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history)).resolves.toBeUndefined();
});
