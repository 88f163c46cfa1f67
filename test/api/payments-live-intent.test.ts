/**
 * One live payment per order (issue 11): a new idempotency key on an order whose payment is still
 * `pending` or `processing` never creates a second intent. The same request (route, method, token or
 * number) answers the live payment; any other answers PAYMENT_ORDER_INVALID_STATUS naming it. Only the
 * processor's word releases a live payment (its intent cancelled), or an insert nobody finished.
 */
import type { z } from 'zod';
import { createCardProcessorProvider } from '../../src/payments/providers';
import type { MobileWalletResult, PaymentResult } from '../../src/payments/schemas';
import { fingerprintOf } from '../../src/payments/service';
import { errorCode } from '../helpers/app';
import { createPaymentsTestApp, fakeProcessor, newKey, payer, pendingOrder, post, type PaymentsTestApp } from '../helpers/payments';
import { errorOf, typed } from '../helpers/responses';

type Payment = z.infer<typeof PaymentResult>;
type MobilePayment = z.infer<typeof MobileWalletResult>;
type InProgress = { paymentId: string; reason: string };

const PENDING_WAIT_MS = 300;
const ABANDONED_AFTER_MS = 120_000;

async function paymentsOf(app: PaymentsTestApp, orderId: string) {
  return app.t.db.query<{ id: string; status: string; failure_reason: string | null }>(
    'select id, status, failure_reason from payments where order_id = $1 order by created_at, id',
    [orderId],
  );
}

const intentCreates = (processor: Awaited<ReturnType<typeof fakeProcessor>>) =>
  processor.seen.filter((s) => s.method === 'POST' && s.path === '/v1/payment_intents').length;

function expectInProgress(res: { status: number; body: unknown }, paymentId: string) {
  expect([res.status, errorCode(res), errorOf<InProgress>(res).details]).toEqual([
    402,
    'PAYMENT_ORDER_INVALID_STATUS',
    { paymentId, reason: 'payment_in_progress' },
  ]);
}

describe('with the card processor', () => {
  let cp: PaymentsTestApp;
  let processor: Awaited<ReturnType<typeof fakeProcessor>>;
  beforeAll(async () => {
    processor = await fakeProcessor();
    cp = await createPaymentsTestApp({
      provider: createCardProcessorProvider({ apiKey: 'sk_test_local', apiBaseUrl: processor.baseUrl, maxNetworkRetries: 0 }),
      pendingWaitMs: PENDING_WAIT_MS,
    });
  });
  afterAll(async () => {
    await cp.close();
    await processor.close();
  });
  beforeEach(() => {
    processor.seen.splice(0);
    processor.intent.status = 'requires_payment_method';
  });

  const intent = async (auth: Record<string, string>, body: object) =>
    typed<Payment>(await post(cp, '/payments/create-intent', auth, body));

  it('20 parallel create-intent requests with different keys: one payment, one intent, all 20 answered with it (status processing, its client secret)', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() })),
    );
    const rows = await paymentsOf(cp, order.orderId);
    expect(rows).toEqual([{ id: rows[0].id, status: 'processing', failure_reason: null }]);
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    for (const r of answers) {
      expect(r.body).toEqual({
        paymentId: rows[0].id,
        status: 'processing',
        clientSecret: 'pi_test_123_secret_abc',
        gatewayTransactionId: 'pi_test_123',
      });
    }
    expect(intentCreates(processor)).toBe(1);
    expect(cp.temporal.settlements.filter((id) => id === rows[0].id)).toHaveLength(1);
  });

  it('20 parallel requests with different keys, methods and routes: one payment; the same request is answered with it, every other one is told which payment is in progress', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    // Three kinds of request: card_scheme_1, card_scheme_2, and one wallet token.
    const kind = (i: number) => (i % 2 === 1 ? 'wallet' : i % 4 === 0 ? 'card_scheme_1' : 'card_scheme_2');
    const calls = Array.from({ length: 20 }, (_, i) =>
      kind(i) === 'wallet'
        ? post(cp, '/payments/wallet-token', user.auth, { orderId: order.orderId, walletToken: 'pm_card_visa', idempotencyKey: newKey() })
        : intent(user.auth, { orderId: order.orderId, method: kind(i), idempotencyKey: newKey() }),
    );
    const answers = await Promise.all(calls);
    const rows = await paymentsOf(cp, order.orderId);
    expect(rows).toHaveLength(1);
    const [live] = rows;
    const winner = answers.find((r) => r.status === 201)!;
    for (const r of answers) {
      if (r.status === 201) expect((r.body as Payment).paymentId).toBe(live.id);
      else expectInProgress(r, live.id);
    }
    // Exactly the requests equal to the winner's (route, method, token) are answered with it.
    const winnerKind = kind(answers.indexOf(winner));
    expect(answers.map((r) => r.status === 201)).toEqual(answers.map((_, i) => kind(i) === winnerKind));
    expect(intentCreates(processor)).toBe(1);
  });

  it('a second key with another method while the card payment is processing: PAYMENT_ORDER_INVALID_STATUS naming it, no second intent', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    const first = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([first.status, first.body.status]).toEqual([201, 'processing']);

    expectInProgress(
      await intent(user.auth, { orderId: order.orderId, method: 'generic_processor', idempotencyKey: newKey() }),
      first.body.paymentId,
    );
    expectInProgress(
      await post(cp, '/payments/wallet-token', user.auth, {
        orderId: order.orderId,
        walletToken: 'pm_card_visa',
        idempotencyKey: newKey(),
      }),
      first.body.paymentId,
    );
    expectInProgress(
      await post(cp, '/payments/mobile-wallet', user.auth, {
        orderId: order.orderId,
        mobileNumber: '0512345678',
        idempotencyKey: newKey(),
      }),
      first.body.paymentId,
    );
    const again = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(intentCreates(processor)).toBe(1);
    expect((await paymentsOf(cp, order.orderId)).map((r) => r.id)).toEqual([first.body.paymentId]);
  });

  it('age alone never releases a processing payment: its intent can still be confirmed', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    const first = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    cp.t.clock.advance(3 * 24 * 3600 * 1000);
    try {
      expectInProgress(
        await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_2', idempotencyKey: newKey() }),
        first.body.paymentId,
      );
      expect((await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() })).body).toEqual(
        first.body,
      );
    } finally {
      cp.t.clock.advance(-3 * 24 * 3600 * 1000);
    }
  });

  it('a processing payment whose intent the processor already cancelled is failed, and the new request pays with a new intent', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    const first = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    processor.intent.status = 'canceled';
    const second = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_2', idempotencyKey: newKey() });
    expect([second.status, second.body.status]).toEqual([201, 'processing']);
    expect(second.body.paymentId).not.toBe(first.body.paymentId);
    // (Both rows carry the test clock's time: compared without order.)
    expect(await paymentsOf(cp, order.orderId)).toEqual(
      expect.arrayContaining([
        { id: first.body.paymentId, status: 'failed', failure_reason: 'intent_canceled' },
        { id: second.body.paymentId, status: 'processing', failure_reason: null },
      ]),
    );
    expect(await paymentsOf(cp, order.orderId)).toHaveLength(2);
    expect(processor.seen.filter((s) => s.method === 'GET').map((s) => s.path)).toEqual([
      expect.stringMatching(/^\/v1\/payment_intents\/pi_test_123/),
    ]);
    expect(intentCreates(processor)).toBe(2);
  });

  it('an intent the processor does not know leaves the live payment live', async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId);
    const [stuck] = await cp.t.db.query<{ id: string }>(
      `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
         gateway_transaction_id, client_secret, created_at, updated_at)
       values ($1, $2, 'card_scheme_1', 'card_processor', 'processing', 4900, 'SAR', $3, $4, 'pi_unknown_to_the_fake', 'pi_unknown_secret', now(), now())
       returning id`,
      [order.orderId, user.userId, newKey(), fingerprintOf('create-intent', { orderId: order.orderId, method: 'card_scheme_1' })],
    );
    expectInProgress(await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_2', idempotencyKey: newKey() }), stuck.id);
  });
});

describe('with the mock provider', () => {
  let p: PaymentsTestApp;
  beforeAll(async () => {
    p = await createPaymentsTestApp({ pendingWaitMs: PENDING_WAIT_MS });
  });
  afterAll(() => p.close());

  const mobile = async (auth: Record<string, string>, body: object) =>
    typed<MobilePayment>(await post(p, '/payments/mobile-wallet', auth, body));

  async function pendingRow(
    userId: string,
    orderId: string,
    opts: { method?: 'card_scheme_1' | 'card_scheme_2' | 'wallet_token'; ageMs?: number; fingerprint?: string } = {},
  ) {
    const method = opts.method ?? 'card_scheme_1';
    const createdAt = new Date(p.t.clock().getTime() - (opts.ageMs ?? 0));
    const [row] = await p.t.db.query<{ id: string }>(
      `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint, created_at, updated_at)
       values ($1, $2, $3, 'mock', 'pending', 4900, 'SAR', $4, $5, $6, $6) returning id`,
      [orderId, userId, method, newKey(), opts.fingerprint ?? fingerprintOf('create-intent', { orderId, method }), createdAt],
    );
    return row.id;
  }

  it('20 parallel mobile-wallet requests with different keys: one payment, one approval URL, one settlement start', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() })),
    );
    const rows = await paymentsOf(p, order.orderId);
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((r) => `${r.status} ${r.body.paymentId} ${r.body.status} ${r.body.redirectUrl}`))).toEqual(
      new Set([`201 ${rows[0].id} processing ${answers[0].body.redirectUrl}`]),
    );
    expect(p.temporal.settlements.filter((id) => id === rows[0].id)).toHaveLength(1);
  });

  it('still completes one payment per order with parallel card-like requests (the others find the order paid)', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(p, '/payments/create-intent', user.auth, {
          orderId: order.orderId,
          method: i % 2 ? 'card_scheme_1' : 'local_debit',
          idempotencyKey: newKey(),
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201))
      expect([r.status, errorCode(r)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
    expect((await paymentsOf(p, order.orderId)).filter((r) => r.status === 'completed')).toHaveLength(1);
  });

  it('a payment still waiting for its provider answer: another request waits for it, then is told it is in progress', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const live = await pendingRow(user.userId, order.orderId, { method: 'card_scheme_2' });
    const started = Date.now();
    expectInProgress(
      await post(p, '/payments/create-intent', user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }),
      live,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(PENDING_WAIT_MS);
  });

  it('the same request under a new key while the first one still calls the provider: told it is in progress, nothing called twice', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const live = await pendingRow(user.userId, order.orderId, { method: 'card_scheme_1' });
    expectInProgress(
      await post(p, '/payments/create-intent', user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }),
      live,
    );
    expect(await paymentsOf(p, order.orderId)).toEqual([{ id: live, status: 'pending', failure_reason: null }]);
  });

  it('the same request under a new key drives a payment whose first request never recorded the provider answer', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const live = await pendingRow(user.userId, order.orderId, { method: 'card_scheme_1', ageMs: ABANDONED_AFTER_MS + 1_000 });
    const res = typed<Payment>(
      await post(p, '/payments/create-intent', user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }),
    );
    expect([res.status, res.body.paymentId, res.body.status]).toEqual([201, live, 'completed']);
  });

  it('a payment nobody finished (pending longer than any provider call) is failed as abandoned, and the new request pays', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const abandoned = await pendingRow(user.userId, order.orderId, {
      method: 'wallet_token',
      ageMs: ABANDONED_AFTER_MS + 1_000,
      fingerprint: 'f'.repeat(64),
    });
    const res = typed<Payment>(
      await post(p, '/payments/create-intent', user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }),
    );
    expect([res.status, res.body.status]).toEqual([201, 'completed']);
    expect(await paymentsOf(p, order.orderId)).toEqual(
      expect.arrayContaining([
        { id: abandoned, status: 'failed', failure_reason: 'abandoned' },
        { id: res.body.paymentId, status: 'completed', failure_reason: null },
      ]),
    );
    expect(await paymentsOf(p, order.orderId)).toHaveLength(2);
  });

  it('the database refuses a second live payment for one order, whoever writes it', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    await pendingRow(user.userId, order.orderId);
    await expect(pendingRow(user.userId, order.orderId, { method: 'card_scheme_2' })).rejects.toThrow(/payments_order_live_unique/);
    // Settled payments do not count: a failed or completed one sits next to a live one.
    await p.t.db.query(`update payments set status = 'failed' where order_id = $1`, [order.orderId]);
    await expect(pendingRow(user.userId, order.orderId, { method: 'card_scheme_2' })).resolves.toEqual(expect.any(String));
  });
});
