// eSIM provider callbacks de-duplicate on the receipt's unique (provider, event_id): the insert
// is the de-duplication, so identical callbacks that arrive together hand the order over once.
import request from 'supertest';
import { createLogger } from '../../src/http/logger';
import type { StoreOrderReconciliation } from '../../src/store/callbacks';
import { createEsimProviderWebhook, EsimProviderCallback } from '../../src/webhooks/esim-provider';
import { createWebhookTestApp, esimCallback, type WebhookTestApp } from '../helpers/webhooks';

/** A reconciliation whose hand-off takes `delayMs` (a slow queue): the window a select-then-insert would race in. */
function slowStoreOrders(delayMs: number) {
  const handedOff: string[] = [];
  const state = { failNext: 0 };
  const storeOrders: StoreOrderReconciliation = {
    async enqueue(callback) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (state.failNext > 0) {
        state.failNext -= 1;
        throw new Error('queue unavailable');
      }
      handedOff.push(`${callback.orderId}:${callback.status}`);
      return 'enqueued';
    },
  };
  return { storeOrders, handedOff, state };
}

const store = slowStoreOrders(150);
let w: WebhookTestApp;

beforeAll(async () => {
  w = await createWebhookTestApp({ storeOrders: store.storeOrders });
});
afterAll(() => w.close());
beforeEach(() => {
  store.handedOff.length = 0;
  store.state.failNext = 0;
});

const post = (body: object) => request(w.app).post('/webhooks/esim-provider').send(body);
const receipts = (orderId: string) =>
  w.t.db.query<{ event_id: string; outcome: string }>(
    `select event_id, outcome from webhook_events where provider = 'esim_provider' and event_id like $1 order by event_id`,
    [`${orderId}:%`],
  );

it('answers 8 identical callbacks sent together with 200: one receipt, one hand-off, the other 7 duplicate: true', async () => {
  const orderId = `ord-parallel-${process.pid}`;
  const answers = await Promise.all(Array.from({ length: 8 }, () => post(esimCallback(orderId))));

  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  const bodies = answers.map((a) => a.body as Record<string, unknown>);
  expect(bodies.filter((b) => b.duplicate === true)).toHaveLength(7);
  expect(bodies.filter((b) => b.duplicate === undefined)).toEqual([{ received: true }]);
  expect(store.handedOff).toEqual([`${orderId}:completed`]);
  expect(await receipts(orderId)).toEqual([{ event_id: `${orderId}:completed`, outcome: 'enqueued' }]);
});

it('hands over once per (order, status) when two statuses arrive together with their duplicates', async () => {
  const orderId = `ord-two-statuses-${process.pid}`;
  const bodies = [1, 2, 3].flatMap(() => [esimCallback(orderId), esimCallback(orderId, { status: 'failed' })]);
  const answers = await Promise.all(bodies.map(post));

  expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
  expect(answers.filter((a) => (a.body as { duplicate?: boolean }).duplicate === true)).toHaveLength(4);
  expect([...store.handedOff].sort()).toEqual([`${orderId}:completed`, `${orderId}:failed`]);
  expect((await receipts(orderId)).map((r) => r.event_id)).toEqual([`${orderId}:completed`, `${orderId}:failed`]);
});

it('when the first hand-off fails, a duplicate that waited on it takes over: 503 for one, one hand-off, one receipt', async () => {
  const orderId = `ord-takeover-${process.pid}`;
  store.state.failNext = 1;
  const answers = await Promise.all(Array.from({ length: 3 }, () => post(esimCallback(orderId))));

  expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503]);
  expect(store.handedOff).toEqual([`${orderId}:completed`]);
  expect(await receipts(orderId)).toEqual([{ event_id: `${orderId}:completed`, outcome: 'enqueued' }]);
  const ok = answers.filter((a) => a.status === 200).map((a) => a.body as Record<string, unknown>);
  expect(ok).toEqual(expect.arrayContaining([{ received: true }, { received: true, duplicate: true }]));
});

it('answers 503 and keeps nothing when the hand-off passes its deadline; the redelivery then hands off', async () => {
  const orderId = `ord-deadline-${process.pid}`;
  const hanging: StoreOrderReconciliation = { enqueue: () => new Promise(() => undefined) };
  const webhook = (reconciliation: StoreOrderReconciliation, handoffDeadlineMs: number) =>
    createEsimProviderWebhook({
      db: w.t.db.sql,
      logger: createLogger('silent'),
      publicKey: w.t.config.ESIM_PROVIDER_PUBLIC_KEY,
      merchantId: w.t.config.ESIM_PROVIDER_MERCHANT_ID,
      reconciliation,
      clock: w.t.clock,
      handoffDeadlineMs,
    });
  const callback = EsimProviderCallback.parse(esimCallback(orderId));

  await expect(webhook(hanging, 100).receive(callback)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(await receipts(orderId)).toEqual([]);
  expect(await webhook(store.storeOrders, 5_000).receive(callback)).toEqual({ received: true });
  expect(await receipts(orderId)).toEqual([{ event_id: `${orderId}:completed`, outcome: 'enqueued' }]);
});
