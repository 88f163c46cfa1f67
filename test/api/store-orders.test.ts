/**
 * Ordering from the eSIM store (esim-store spec "Device acknowledgement", "Store order", "Authenticated",
 * "Admin", "The eSIM provider webhook"; consumer spec's payment method table and receipt currency rule),
 * against real Postgres with the stand-ins seeded and a fake of the order's run.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createLogger } from '../../src/http/logger';
import type { SignalSender } from '../../src/workflow-signals/kinds';
import { createSignalRelay } from '../../src/workflow-signals/relay';
import type { z } from 'zod';
import * as s from '../../src/store/schemas';
import { errorCodes, type ErrorCode } from '../../src/http/error-codes';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { failStoreOrder } from '../../src/store/failure';
import { mockProfile, mockStoreProviders } from '../../src/store/providers/mock';
import type { StoreOrderRuns } from '../../src/store/runs';
import { bearer, createTestApp, errorCode, eventually, signUp, type TestApp } from '../helpers/app';
import { signInAs, type Caller } from '../helpers/company-routes';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';
import { createStoreApp, productId, providerId, seedStore } from '../helpers/store';
import { esimCallback } from '../helpers/webhooks';

/** The order runs' fake and Temporal's for the signals: records every call; `fail` makes them reject (Temporal away). */
const runs = {
  started: [] as string[],
  paid: [] as Array<[string, string]>,
  callbacks: [] as string[],
  requeued: [] as string[],
  fail: false,
};
const fakeRuns: StoreOrderRuns = {
  start: ({ orderId }) => (runs.fail ? Promise.reject(new Error('away')) : (runs.started.push(orderId), Promise.resolve())),
};

/** "Order paid", the provider's callbacks and a requeue reach the run as pending signals (src/workflow-signals), sent at once. */
const paidSignals: SignalSender = ({ workflowId, signal, args, start }) => {
  if (runs.fail) return Promise.reject(new Error('away'));
  const orderId = workflowId.replace(/^store-order:/, '');
  if (signal === 'storeOrderPaid') runs.paid.push([orderId, String(args.paymentId)]);
  if (signal === 'providerCallback') runs.callbacks.push(orderId);
  // Signal-with-start: a finished order's run is started again.
  if (signal === 'requeue' && start) runs.requeued.push(orderId);
  return Promise.resolve('signalled');
};

let t: TestApp;
let off: TestApp;
let buyer: { token: string; userId: string };
let other: { token: string; userId: string };
let viewer: Caller;
let manager: Caller;
let ackId: string;
beforeAll(async () => {
  [t, off] = await Promise.all([
    createStoreApp({
      // mock-store-lite's live health check fails (its recorded verdict is healthy: the live check decides).
      deps: { storeOrderRuns: fakeRuns, signalSender: paidSignals, storeProviders: mockStoreProviders({ unhealthy: ['mock-store-lite'] }) },
      env: { MESSAGES_FILE: '/dev/null' },
    }),
    createTestApp({ deps: { storeOrderRuns: fakeRuns } }),
  ]);
  buyer = await signUp(t, { email: `buyer-${process.pid}@example.com` });
  other = await signUp(t);
  viewer = await signInAs(t, 'admin', { view: ['store'] });
  manager = await signInAs(t, 'admin', { view: ['store'], manage: ['store'] });
  ackId = (await acknowledge(buyer.token)).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await off?.close();
});
afterEach(async () => {
  runs.fail = false;
  await seedStore(t);
});

type Body = { data: Record<string, unknown> & { id: string; status: string } };
/** Once the order's run is started (the create's start, tried after its answer): until then its signals wait for it. */
const runStarted = (id: string) =>
  eventually(async () => {
    const rows = await t.db.query(`select 1 from workflow_starts where workflow_id = $1 and started_at is not null`, [`store-order:${id}`]);
    expect(rows).toHaveLength(1);
  });
/** The order's pending requeue signals: what they start, and whether they were delivered. */
const requeueRows = (id: string) =>
  t.db.query<{ outcome: string | null; start: unknown }>(
    `select outcome, start from workflow_signals where workflow_id = $1 and signal = 'requeue' order by id`,
    [`store-order:${id}`],
  );
type OrderOne = z.infer<typeof s.StoreOrderResponse>;
type OrderPage = z.infer<typeof s.StoreOrderList>;
type AdminPage = z.infer<typeof s.AdminOrderList>;
type AdminOne = z.infer<typeof s.AdminOrderResponse>;
type Receipt = { amountSar: number; currency: string };
const post = (path: string, token: string, body: object, lang = 'en') =>
  request(t.app).post(path).set(bearer(token)).set('Accept-Language', lang).send(body);
const acknowledge = async (token: string, body: object = { deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true }) =>
  typed<Body>(await post('/store/device-acknowledgements', token, body));
const order = async (sku: string, extra: object = {}, token = buyer.token, lang = 'en') =>
  typed<Body>(await post('/store/orders', token, { productId: productId(sku), deviceAcknowledgementId: ackId, ...extra }, lang));
type Paid = { status: string; paymentId: string };
const pay = async (orderId: string, method = 'card_scheme_1', token = buyer.token) =>
  typed<Paid>(await post('/payments/create-intent', token, { orderId, method, idempotencyKey: `key-${randomUUID()}` }));

describe('POST /store/device-acknowledgements', () => {
  it('answers 201 with { id, deviceModel, acknowledgedAt }', async () => {
    const res = await acknowledge(buyer.token, { deviceModel: 'iPhone 16', esimCompatible: true, carrierUnlocked: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(String) as string, deviceModel: 'iPhone 16', acknowledgedAt: t.clock().toISOString() });
  });

  it('refuses a device that is not eSIM-compatible or not unlocked, or a model outside 1-100 characters (VALIDATION_ERROR)', async () => {
    for (const body of [
      { deviceModel: 'X', esimCompatible: false, carrierUnlocked: true },
      { deviceModel: 'X', esimCompatible: true, carrierUnlocked: false },
      { deviceModel: '', esimCompatible: true, carrierUnlocked: true },
      { deviceModel: 'x'.repeat(101), esimCompatible: true, carrierUnlocked: true },
    ]) {
      const res = await acknowledge(buyer.token, body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('needs a session (AUTH_REQUIRED) and the gate (STORE_DISABLED, in Arabic too)', async () => {
    const anon = await request(t.app)
      .post('/store/device-acknowledgements')
      .send({ deviceModel: 'X', esimCompatible: true, carrierUnlocked: true });
    expect([anon.status, errorCode(anon)]).toEqual([401, 'AUTH_REQUIRED']);
    const user = await signUp(off);
    const res = await request(off.app)
      .post('/store/device-acknowledgements')
      .set(bearer(user.token))
      .set('Accept-Language', 'ar')
      .send({ deviceModel: 'X', esimCompatible: true, carrierUnlocked: true });
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([422, 'STORE_DISABLED', 'المتجر غير متاح حالياً']);
  });
});

describe('POST /store/orders', () => {
  it('creates the store order and its order row (same id, pending_payment, total in USD) and starts its run', async () => {
    const res = await order('MOCK-SYNC-SA-5GB', { currency: 'SAR', expectedPrice: { amount: 45, currency: 'SAR' } });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(res.body.data).toEqual({
      id,
      status: 'pending_payment',
      product: {
        productId: productId('MOCK-SYNC-SA-5GB'),
        nameEn: expect.any(String) as string,
        nameAr: expect.any(String) as string,
        countries: ['SA'],
        dataAmountMb: 5120,
        isUnlimited: false,
        validityDays: 30,
      },
      charge: { amount: 12, currency: 'USD' },
      display: { amount: 45, currency: 'SAR' },
      fx: { ratePerUsd: 3.75, fetchedAt: expect.any(String) as string, source: 'mock' },
      paymentId: null,
      esimProfile: null,
      failureReason: null,
      createdAt: t.clock().toISOString(),
      updatedAt: t.clock().toISOString(),
      issuedAt: null,
    });
    expect(await t.db.query(`select status, total_halalas::int as total, currency, user_id from orders where id = $1`, [id])).toEqual([
      { status: 'pending_payment', total: 1200, currency: 'USD', user_id: buyer.userId },
    ]);
    expect(await t.db.query(`select kind, workflow_id from workflow_starts where workflow_id = $1`, [`store-order:${id}`])).toEqual([
      { kind: 'storeOrder', workflow_id: `store-order:${id}` },
    ]);
    expect(runs.started).toContain(id);
  });

  it('creates the order while Temporal is away: the start stays pending for the relay (an outage refuses nothing)', async () => {
    runs.fail = true;
    const res = await order('MOCK-SYNC-AE-1GB');
    expect(res.status).toBe(201);
    const [row] = await t.db.query<{ started_at: Date | null }>(`select started_at from workflow_starts where workflow_id = $1`, [
      `store-order:${res.body.data.id}`,
    ]);
    expect(row.started_at).toBeNull();
  });

  it.each([
    ['an unknown acknowledgement', () => ({ deviceAcknowledgementId: randomUUID() })],
    ['another user’s acknowledgement', async () => ({ deviceAcknowledgementId: (await acknowledge(other.token)).body.data.id })],
  ])('refuses %s with VALIDATION_ERROR', async (_, extra) => {
    const res = await order('MOCK-SYNC-SA-5GB', await extra());
    expect([res.status, errorCode(res), errorOf<Array<{ path: string }>>(res).details[0].path]).toEqual([
      400,
      'VALIDATION_ERROR',
      'deviceAcknowledgementId',
    ]);
  });

  it.each([
    ['an unknown product', null, {}, 404, 'STORE_PRODUCT_NOT_FOUND'],
    ['an inactive product', 'MOCK-SYNC-OLD-1GB', {}, 422, 'STORE_PRODUCT_INACTIVE'],
    ['a provider whose live health check fails', 'LITE-SYNC-SA-1GB', {}, 422, 'STORE_PROVIDER_UNAVAILABLE'],
    ['an external provider', 'EXT-SYNC-SA-1GB', {}, 422, 'STORE_PROVIDER_PAYMENT_EXTERNAL'],
    ['a currency outside the list', 'MOCK-SYNC-SA-5GB', { currency: 'JPY' }, 400, 'STORE_CURRENCY_UNSUPPORTED'],
    ['a changed price', 'MOCK-SYNC-SA-5GB', { expectedPrice: { amount: 11.99, currency: 'USD' } }, 409, 'STORE_PRICE_CHANGED'],
    ['a charge below USD 0.50', 'MOCK-SYNC-CHEAP-100MB', {}, 422, 'STORE_CHARGE_BELOW_MINIMUM'],
  ])('refuses %s (in English and in Arabic)', async (_, sku, extra, status, code) => {
    for (const lang of ['en', 'ar'] as const) {
      const res = sku
        ? await order(sku, extra, buyer.token, lang)
        : await post('/store/orders', buyer.token, { productId: randomUUID(), deviceAcknowledgementId: ackId }, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([status, code, errorCodes[code as ErrorCode][lang]]);
    }
  });

  it('refuses an identity-check product of a provider without the async flow (STORE_KYC_REQUIRED)', async () => {
    // mock-store-lite fails its live check in this file's app: an app whose lite provider is healthy.
    const app = await createStoreApp({ deps: { storeOrderRuns: fakeRuns } });
    try {
      const user = await signUp(app);
      const ack = await request(app.app)
        .post('/store/device-acknowledgements')
        .set(bearer(user.token))
        .send({ deviceModel: 'X', esimCompatible: true, carrierUnlocked: true });
      const body = { productId: productId('LITE-KYC-SA-5GB'), deviceAcknowledgementId: (ack.body as Body).data.id };
      const res = await request(app.app).post('/store/orders').set(bearer(user.token)).set('Accept-Language', 'ar').send(body);
      expect([res.status, errorCode(res)]).toEqual([422, 'STORE_KYC_REQUIRED']);
      const ok = await request(app.app)
        .post('/store/orders')
        .set(bearer(user.token))
        .send({ ...body, productId: productId('MOCK-KYC-SA-10GB') });
      expect(ok.status).toBe(201);
    } finally {
      await app.close();
    }
  });

  it('STORE_PRICE_CHANGED carries details.currentPrice in the expected price’s currency', async () => {
    const res = await order('MOCK-SYNC-SA-5GB', { currency: 'USD', expectedPrice: { amount: 40, currency: 'SAR' } }, buyer.token, 'ar');
    expect([res.status, errorCode(res), errorOf(res).details]).toEqual([
      409,
      'STORE_PRICE_CHANGED',
      { currentPrice: { amount: 45, currency: 'SAR' } },
    ]);
  });

  it('checks in the contract’s order: a product that is inactive and of an external provider is STORE_PRODUCT_INACTIVE', async () => {
    await t.db.query(`update store_products set is_active = false where id = $1`, [productId('EXT-SYNC-SA-1GB')]);
    const res = await order('EXT-SYNC-SA-1GB', { currency: 'JPY' });
    expect([res.status, errorCode(res)]).toEqual([422, 'STORE_PRODUCT_INACTIVE']);
  });

  it('refuses an inactive provider (STORE_PROVIDER_UNAVAILABLE) and answers STORE_DISABLED with the gate off', async () => {
    await t.db.query(`update operators set is_active = false where id = $1`, [providerId('mock-store')]);
    const res = await order('MOCK-SYNC-SA-5GB');
    expect([res.status, errorCode(res)]).toEqual([422, 'STORE_PROVIDER_UNAVAILABLE']);
    const user = await signUp(off);
    const gated = await request(off.app)
      .post('/store/orders')
      .set(bearer(user.token))
      .send({ productId: randomUUID(), deviceAcknowledgementId: randomUUID() });
    expect([gated.status, errorCode(gated)]).toEqual([422, 'STORE_DISABLED']);
  });
});

describe('POST /store/orders with an Idempotency-Key (a retry after a lost answer)', () => {
  const keyed = (key: string, body: object, token = buyer.token) =>
    request(t.app).post('/store/orders').set(bearer(token)).set('Idempotency-Key', key).send(body);
  const ordersOf = (userId: string) =>
    t.db.query<{ n: number }>(`select count(*)::int as n from store_orders where user_id = $1`, [userId]);

  it('answers a repeat, and parallel repeats, with the one order', async () => {
    const buyer2 = await signUp(t, { email: `keyed-${process.pid}@example.com` });
    const ack = (await acknowledge(buyer2.token)).body.data.id;
    const body = { productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: ack };
    const answers = await Promise.all(Array.from({ length: 4 }, () => keyed('order-key-01', body, buyer2.token)));
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((res) => (res.body as Body).data.id)).size).toBe(1);
    const again = await keyed('order-key-01', body, buyer2.token);
    expect([again.status, (again.body as Body).data.id]).toEqual([201, (answers[0].body as Body).data.id]);
    expect(await ordersOf(buyer2.userId)).toEqual([{ n: 1 }]);
  });

  it('refuses the key with another body (VALIDATION_ERROR on the header), and keeps keys per person', async () => {
    const body = { productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: ackId };
    expect((await keyed('order-key-02', body)).status).toBe(201);
    const reused = await keyed('order-key-02', { ...body, productId: productId('MOCK-SYNC-AE-1GB') });
    expect([reused.status, errorCode(reused)]).toEqual([400, 'VALIDATION_ERROR']);
    const theirAck = (await acknowledge(other.token)).body.data.id;
    const theirs = await keyed('order-key-02', { ...body, deviceAcknowledgementId: theirAck }, other.token);
    expect(theirs.status).toBe(201);
  });

  it('answers VALIDATION_ERROR for a key outside 8-128 characters', async () => {
    const res = await keyed('short', { productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: ackId });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('paying a store order through the payment routes', () => {
  it('charges a card method in USD: the order is paid, its run told, the receipt (JSON and PDF) in USD', async () => {
    const created = await order('MOCK-SYNC-GLOBAL-UNL', { currency: 'EUR' });
    const id = created.body.data.id;
    // The API tells the run itself only once it exists (a signal before waits for the start, for the relay).
    await runStarted(id);
    const res = await pay(id, 'card_scheme_2');
    expect([res.status, res.body.status]).toEqual([201, 'completed']);
    const paymentId = res.body.paymentId;
    expect(await t.db.query(`select amount_minor::int as amount, currency from payments where id = $1`, [paymentId])).toEqual([
      { amount: 3900, currency: 'USD' },
    ]);
    const receipt = typed<Receipt>(await request(t.app).get(`/payments/${paymentId}/receipt`).set(bearer(buyer.token)));
    expect([receipt.status, receipt.body.amountSar, receipt.body.currency]).toEqual([200, 39, 'USD']);
    const pdf = await request(t.app).get(`/documents/payment/${paymentId}.pdf`).set(bearer(buyer.token));
    expect([pdf.status, pdf.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect(runs.paid).toContainEqual([id, paymentId]);
    const read = typed<OrderOne>(await request(t.app).get(`/store/orders/${id}`).set(bearer(buyer.token)));
    expect([read.body.data.status, read.body.data.paymentId]).toEqual(['paid', paymentId]);
  });

  it('charges wallet-token in USD', async () => {
    const id = (await order('MOCK-SYNC-AE-1GB')).body.data.id;
    const res = typed<Paid>(
      await post('/payments/wallet-token', buyer.token, { orderId: id, walletToken: 'tok_ok', idempotencyKey: `key-${randomUUID()}` }),
    );
    expect([res.status, res.body.status]).toEqual([201, 'completed']);
  });

  it('refuses local_debit and mobile_wallet (PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER), in both languages', async () => {
    const id = (await order('MOCK-SYNC-AE-1GB')).body.data.id;
    const debit = await post(
      '/payments/create-intent',
      buyer.token,
      { orderId: id, method: 'local_debit', idempotencyKey: `key-${randomUUID()}` },
      'ar',
    );
    expect([debit.status, errorCode(debit)]).toEqual([422, 'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER']);
    const wallet = await post('/payments/mobile-wallet', buyer.token, {
      orderId: id,
      mobileNumber: '0512345678',
      idempotencyKey: `key-${randomUUID()}`,
    });
    expect([wallet.status, errorCode(wallet)]).toEqual([422, 'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER']);
    expect(await t.db.query(`select count(*)::int as n from payments where order_id = $1`, [id])).toEqual([{ n: 0 }]);
  });

  it('refuses every method when the provider’s payment mode is external (STORE_PROVIDER_PAYMENT_EXTERNAL)', async () => {
    const id = (await order('MOCK-SYNC-AE-1GB')).body.data.id;
    await t.db.query(`update operators set payment_mode = 'external' where id = $1`, [providerId('mock-store')]);
    for (const res of [
      await pay(id),
      await post('/payments/mobile-wallet', buyer.token, {
        orderId: id,
        mobileNumber: '0512345678',
        idempotencyKey: `key-${randomUUID()}`,
      }),
    ]) {
      expect([res.status, errorCode(res)]).toEqual([422, 'STORE_PROVIDER_PAYMENT_EXTERNAL']);
    }
  });
});

describe('GET /store/orders, GET /store/orders/:id, GET /store/orders/:id/esim-qr', () => {
  const cipher = () => createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
  const issue = (id: string) =>
    t.db.query(`update store_orders set status = 'issued', issued_at = now(), profile_encrypted = $2 where id = $1`, [
      id,
      cipher().encrypt(JSON.stringify(mockProfile(id))),
    ]);

  it('lists the caller’s own orders newest first, keyset-paged, filtered by status; available with the gate off', async () => {
    const user = await signUp(t);
    const ack = (await acknowledge(user.token)).body.data.id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      t.clock.advance(1_000);
      ids.push((await order('MOCK-SYNC-AE-1GB', { deviceAcknowledgementId: ack }, user.token)).body.data.id);
    }
    await issue(ids[0]);
    const first = typed<OrderPage>(await request(t.app).get('/store/orders').query({ limit: 2 }).set(bearer(user.token)));
    expect([first.status, first.body.items.map((o) => o.id), first.body.hasMore]).toEqual([200, [ids[2], ids[1]], true]);
    const second = typed<OrderPage>(
      await request(t.app).get('/store/orders').query({ limit: 2, cursor: first.body.nextCursor! }).set(bearer(user.token)),
    );
    expect([second.body.items.map((o) => o.id), second.body.hasMore, second.body.nextCursor]).toEqual([[ids[0]], false, null]);
    const issued = typed<OrderPage>(await request(t.app).get('/store/orders').query({ status: 'issued' }).set(bearer(user.token)));
    expect(issued.body.items.map((o) => o.id)).toEqual([ids[0]]);
    const bad = await request(t.app).get('/store/orders').query({ cursor: 'nope' }).set(bearer(user.token));
    expect([bad.status, errorCode(bad)]).toEqual([400, 'VALIDATION_ERROR']);
    const offToken = (await signUp(off)).token;
    const gateOff = typed<OrderPage>(await request(off.app).get('/store/orders').set(bearer(offToken)));
    expect([gateOff.status, gateOff.body.items]).toEqual([200, []]);
  });

  it('shows an issued order’s profile and its QR (image/png, private, no-store); another user’s is STORE_ORDER_NOT_FOUND', async () => {
    const id = (await order('MOCK-SYNC-SA-5GB')).body.data.id;
    const early = await request(t.app).get(`/store/orders/${id}/esim-qr`).set(bearer(buyer.token));
    expect([early.status, errorCode(early)]).toEqual([404, 'STORE_ORDER_NOT_FOUND']);
    await issue(id);
    const read = typed<OrderOne>(await request(t.app).get(`/store/orders/${id}`).set(bearer(buyer.token)));
    const profile = mockProfile(id);
    expect(read.body.data.esimProfile).toEqual({ ...profile, qrUrl: `/store/orders/${id}/esim-qr` });
    const qr = await request(t.app).get(`/store/orders/${id}/esim-qr`).set(bearer(buyer.token));
    expect([qr.status, qr.headers['content-type'], qr.headers['cache-control']]).toEqual([200, 'image/png', 'private, no-store']);
    for (const path of [
      `/store/orders/${id}`,
      `/store/orders/${id}/esim-qr`,
      `/store/orders/${randomUUID()}`,
      '/store/orders/not-a-uuid/esim-qr',
    ]) {
      const res = await request(t.app).get(path).set(bearer(other.token)).set('Accept-Language', 'ar');
      expect([res.status, errorCode(res)]).toEqual([404, 'STORE_ORDER_NOT_FOUND']);
    }
    // The order read lists VALIDATION_ERROR (the QR does not): a malformed id is one.
    const malformed = await request(t.app).get('/store/orders/not-a-uuid').set(bearer(other.token));
    expect([malformed.status, errorCode(malformed), errorOf(malformed).details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [expect.objectContaining({ path: 'id' })],
    ]);
    const anon = await request(t.app).get(`/store/orders/${id}`);
    expect([anon.status, errorCode(anon)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});

describe('the eSIM provider webhook hands a verified callback to the order’s run', () => {
  const callback = (orderId: string) => request(t.app).post('/webhooks/esim-provider').send(esimCallback(orderId));

  it('signals the run of a known open order; an issued order changes nothing; an unknown order is kept as a receipt', async () => {
    const id = (await order('MOCK-ASYNC-EG-3GB')).body.data.id;
    await t.db.query(`update store_orders set status = 'awaiting_provider' where id = $1`, [id]);
    expect((await callback(id)).status).toBe(200);
    expect(runs.callbacks).toEqual([id]);
    expect((await callback(id)).body).toEqual({ received: true, duplicate: true });
    const issued = (await order('MOCK-ASYNC-EG-3GB')).body.data.id;
    await t.db.query(`update store_orders set status = 'issued' where id = $1`, [issued]);
    expect((await callback(issued)).status).toBe(200);
    const unknown = randomUUID();
    expect((await callback(unknown)).status).toBe(200);
    expect(runs.callbacks).toEqual([id]);
    expect(await t.db.query(`select outcome from webhook_events where event_id = $1`, [`${unknown}:completed`])).toEqual([
      { outcome: 'unknown_order' },
    ]);
  });

  it('answers 200 while Temporal is away: the receipt is kept and the run’s signal waits for the relay', async () => {
    const id = (await order('MOCK-ASYNC-EG-3GB')).body.data.id;
    await t.db.query(`update store_orders set status = 'awaiting_provider' where id = $1`, [id]);
    runs.fail = true;
    const res = await callback(id);
    expect(res.status).toBe(200);
    expect(await t.db.query(`select outcome from webhook_events where event_id = $1`, [`${id}:completed`])).toEqual([
      { outcome: 'enqueued' },
    ]);
    expect(
      await t.db.query(`select signal, args, delivered_at from workflow_signals where workflow_id = $1 and signal = 'providerCallback'`, [
        `store-order:${id}`,
      ]),
    ).toEqual([{ signal: 'providerCallback', args: { status: 'completed' }, delivered_at: null }]);
    expect(runs.callbacks).not.toContain(id);
  });
});

describe('GET /admin/store/orders, POST /admin/store/orders/:id/requeue', () => {
  it('lists every order with its buyer and provider, never the activation code (View)', async () => {
    const id = (await order('MOCK-SYNC-SA-5GB')).body.data.id;
    const res = typed<AdminPage>(
      await request(t.app).get('/admin/store/orders').query({ status: 'pending_payment', limit: 100 }).set(bearer(viewer.token)),
    );
    expect(res.status).toBe(200);
    const mine = res.body.data.orders.find((o) => o.id === id);
    expect(mine).toMatchObject({ id, userId: buyer.userId, providerSlug: 'mock-store', status: 'pending_payment', iccid: null });
    expect(mine).not.toHaveProperty('esimProfile');
    expect(res.body.data).toMatchObject({ page: 1, limit: 100, total: res.body.data.orders.length });
    const forbidden = await request(t.app).get('/admin/store/orders').set(bearer(buyer.token));
    expect(forbidden.status).toBe(403);
  });

  it('requeues a failed order (202, provisioning, audited); refuses one that is not paid-without-profile (409) and unknown ids (404)', async () => {
    const id = (await order('MOCK-REJECT-US-1GB')).body.data.id;
    await runStarted(id);
    const early = await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token)).set('Accept-Language', 'ar');
    expect([early.status, errorCode(early)]).toEqual([409, 'STORE_ORDER_NOT_REQUEUEABLE']);
    await t.db.query(`update store_orders set status = 'failed', failure_reason = 'refused' where id = $1`, [id]);
    const viewOnly = await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(viewer.token));
    expect(viewOnly.status).toBe(403);
    const res = typed<AdminOne>(await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token)));
    expect([res.status, res.body.data.status, res.body.data.failureReason]).toEqual([202, 'provisioning', null]);
    expect(runs.requeued).toContain(id);
    // What a finished order's new run starts from: the paid order, placing at once, on the worker's queue.
    expect(await requeueRows(id)).toEqual([
      {
        outcome: 'signalled',
        start: {
          workflowType: 'storeOrderWorkflow',
          taskQueue: t.config.TEMPORAL_TASK_QUEUE,
          input: {
            orderId: id,
            requeue: true,
            searchAttributes: t.config.TEMPORAL_SEARCH_ATTRIBUTES,
            timers: {
              paymentTtlMs: t.config.STORE_ORDER_PAYMENT_TTL,
              deliveryDeadlineMs: t.config.STORE_DELIVERY_DEADLINE,
              pollIntervalMs: t.config.STORE_ORDER_POLL_EVERY,
            },
          },
          searchAttributes: { OrderId: id },
        },
      },
    ]);
    expect(await t.db.query(`select action, actor_user_id from audit_events where entity_id = $1`, [id])).toEqual([
      { action: 'store.order_requeued', actor_user_id: manager.userId },
    ]);
    const missing = await request(t.app).post(`/admin/store/orders/${randomUUID()}/requeue`).set(bearer(manager.token));
    expect([missing.status, errorCode(missing)]).toEqual([404, 'STORE_ORDER_NOT_FOUND']);
  });

  /** A paid order failed as its run fails it (the refund record in the same transaction). */
  async function failedOrder(sku = 'MOCK-REJECT-US-1GB', token = buyer.token, reason = 'mock provider: order refused') {
    const id = (await order(sku, token === buyer.token ? {} : { deviceAcknowledgementId: (await acknowledge(token)).body.data.id }, token))
      .body.data.id;
    await runStarted(id);
    const paid = await pay(id, 'card_scheme_1', token);
    await t.db.query(`update store_orders set status = 'provisioning' where id = $1`, [id]);
    await t.db.sql.transaction((tx) => failStoreOrder(tx, id, reason, t.clock()));
    return { id, paymentId: paid.body.paymentId };
  }
  const refundRecords = (paymentId: string) =>
    t.db.query<{ id: string; dedupe_key: string; resolved_at: Date | null; resolved_by_id: string | null; resolution_note: string | null }>(
      `select id, dedupe_key, resolved_at, resolved_by_id, resolution_note from reconciliation_records
        where payment_id = $1 and code = 'PAYMENT_REFUND_REQUIRED' order by created_at, dedupe_key`,
      [paymentId],
    );
  const requeue = (id: string, lang = 'en') =>
    request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token)).set('Accept-Language', lang);

  it('closes the failed order’s open refund record with the requeue; a failure after it owes a new one, which the next requeue closes', async () => {
    const { id, paymentId } = await failedOrder();
    expect(await refundRecords(paymentId)).toEqual([match.objectContaining({ dedupe_key: `refund:${paymentId}`, resolved_at: null })]);
    expect((await requeue(id)).status).toBe(202);
    const closed = {
      resolved_at: t.clock(),
      resolved_by_id: manager.userId,
      resolution_note: 'Closed by the store order’s requeue: the order is placed again (a new failure writes a new record)',
    };
    expect(await refundRecords(paymentId)).toEqual([match.objectContaining({ dedupe_key: `refund:${paymentId}`, ...closed })]);
    const [audit] = await t.db.query<{ details: Record<string, unknown> }>(
      `select details from audit_events where entity_id = $1 and action = 'store.order_requeued'`,
      [id],
    );
    expect(audit.details).toEqual({ before: { status: 'failed' }, refundRecordId: (await refundRecords(paymentId))[0].id });

    // The placed-again order fails once more: a second record, open, closed in turn by the next requeue.
    await t.db.sql.transaction((tx) => failStoreOrder(tx, id, 'STORE_DELIVERY_DEADLINE', t.clock()));
    expect((await refundRecords(paymentId)).map((r) => [r.dedupe_key, r.resolved_at])).toEqual([
      [`refund:${paymentId}`, t.clock()],
      [`refund:${paymentId}:1`, null],
    ]);
    expect((await requeue(id)).status).toBe(202);
    expect((await refundRecords(paymentId)).map((r) => [r.dedupe_key, r.resolved_by_id])).toEqual([
      [`refund:${paymentId}`, manager.userId],
      [`refund:${paymentId}:1`, manager.userId],
    ]);
  });

  it('refuses to requeue a failed order whose refund support resolved already (STORE_ORDER_NOT_REQUEUEABLE, both languages)', async () => {
    const { id, paymentId } = await failedOrder();
    const [record] = await refundRecords(paymentId);
    const root = await signInAs(t, 'super_admin');
    const resolved = await request(t.app)
      .post(`/admin/reconciliation-records/${record.id}/resolve`)
      .set(bearer(root.token))
      .send({ note: 'Refunded at the processor' });
    expect(resolved.status).toBe(200);
    for (const lang of ['en', 'ar'] as const) {
      const res = await requeue(id, lang);
      const message = errorCodes.STORE_ORDER_NOT_REQUEUEABLE[lang];
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([409, 'STORE_ORDER_NOT_REQUEUEABLE', message]);
    }
    expect(await t.db.query(`select status from store_orders where id = $1`, [id])).toEqual([{ status: 'failed' }]);
    expect(await refundRecords(paymentId)).toEqual([
      match.objectContaining({ resolved_by_id: root.userId, resolution_note: 'Refunded at the processor' }),
    ]);
    expect(await requeueRows(id)).toEqual([]);
  });

  it('refuses to requeue the failed order of a deleted account (nothing is issued to it), whatever failed it', async () => {
    const leaving = await signUp(t);
    const byDeadline = await failedOrder('MOCK-SYNC-SA-5GB', leaving.token, 'STORE_DELIVERY_DEADLINE');
    const open = (
      await order('MOCK-SYNC-AE-1GB', { deviceAcknowledgementId: (await acknowledge(leaving.token)).body.data.id }, leaving.token)
    ).body.data.id;
    await runStarted(open);
    await pay(open, 'card_scheme_1', leaving.token);
    expect((await request(t.app).post('/auth/me/deletion-request').set(bearer(leaving.token))).status).toBe(202);
    expect(await t.db.query(`select failure_reason from store_orders where id = $1`, [open])).toEqual([
      { failure_reason: 'ACCOUNT_DELETED' },
    ]);
    for (const id of [byDeadline.id, open]) {
      const res = await requeue(id);
      expect([res.status, errorCode(res)]).toEqual([409, 'STORE_ORDER_NOT_REQUEUEABLE']);
    }
    // Its refund record stays open for support.
    expect((await refundRecords(byDeadline.paymentId)).map((r) => r.resolved_at)).toEqual([null]);
  });

  it('requeues awaiting_provider only past its deadline; with Temporal away it answers the same, and the signal relay tells the run later', async () => {
    const id = (await order('MOCK-ASYNC-EG-3GB')).body.data.id;
    await runStarted(id);
    await t.db.query(`update store_orders set status = 'awaiting_provider', deliver_by = $2 where id = $1`, [
      id,
      new Date(t.clock().getTime() + 60_000),
    ]);
    const early = await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token));
    expect([early.status, errorCode(early)]).toEqual([409, 'STORE_ORDER_NOT_REQUEUEABLE']);
    t.clock.advance(61_000);
    runs.fail = true;
    const away = typed<AdminOne>(await request(t.app).post(`/admin/store/orders/${id}/requeue`).set(bearer(manager.token)));
    expect([away.status, away.body.data.status]).toEqual([202, 'provisioning']);
    expect(await t.db.query(`select status from store_orders where id = $1`, [id])).toEqual([{ status: 'provisioning' }]);
    expect(await t.db.query(`select action from audit_events where entity_id = $1`, [id])).toEqual([{ action: 'store.order_requeued' }]);
    expect(await requeueRows(id)).toEqual([{ outcome: null, start: match.objectContaining({ workflowType: 'storeOrderWorkflow' }) }]);
    expect(runs.requeued).not.toContain(id);

    runs.fail = false;
    const relay = createSignalRelay({
      db: t.db.sql,
      send: paidSignals,
      logger: createLogger('silent'),
      batchSize: 50,
      pollIntervalMs: 60_000,
      maxBackoffMs: 1_000,
    });
    await relay.drain();
    expect(runs.requeued).toContain(id);
    expect(await requeueRows(id)).toEqual([{ outcome: 'signalled', start: match.any(Object) }]);
  });
});
