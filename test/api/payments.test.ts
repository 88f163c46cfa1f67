import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { CreateActivationResponse } from '../../src/activations/schemas';
import { errorCodes } from '../../src/http/error-codes';
import type { FieldIssue } from '../../src/http/errors';
import { buildDocument } from '../../src/openapi/registry';
import * as policy from '../../src/payments/policy';
import { createCardProcessorProvider } from '../../src/payments/providers';
import type { MobileWalletResult, PaymentResult, Receipt } from '../../src/payments/schemas';
import { fingerprintOf, RECEIPT_MESSAGES } from '../../src/payments/service';
import { bearer, errorCode } from '../helpers/app';
import { DEMO, iccid } from '../helpers/activations';
import { match } from '../helpers/match';
import {
  createPaymentsTestApp,
  fakeProcessor,
  getReceipt,
  newKey,
  payer,
  pendingOrder,
  post,
  type PaymentsTestApp,
} from '../helpers/payments';
import { errorOf, typed } from '../helpers/responses';

// The method table is reached through the one policy; store orders do not exist yet, so tests make the resolver say "store".
jest.mock('../../src/payments/policy', () => {
  const actual = jest.requireActual<typeof import('../../src/payments/policy')>('../../src/payments/policy');
  return { ...actual, resolveOrderPaymentContext: jest.fn(actual.resolveOrderPaymentContext) };
});
const resolveContext = policy.resolveOrderPaymentContext as jest.MockedFunction<typeof policy.resolveOrderPaymentContext>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INTENT_METHODS = ['local_debit', 'card_scheme_1', 'card_scheme_2', 'generic_processor'] as const;

let p: PaymentsTestApp;
beforeAll(async () => {
  p = await createPaymentsTestApp({ pendingWaitMs: 1_500 });
});
afterAll(() => p.close());

type Payment = z.infer<typeof PaymentResult>;
type MobilePayment = z.infer<typeof MobileWalletResult>;
/** `details` of a refused payment (PAYMENT_INTENT_FAILED, PAYMENT_WALLET_FAILED, PAYMENT_MOBILE_WALLET_FAILED). */
type Refusal = { paymentId: string; reason: string };

const intent = async (auth: Record<string, string>, body: object, lang?: string) =>
  typed<Payment>(await post(p, '/payments/create-intent', auth, body, lang));
const wallet = async (auth: Record<string, string>, body: object, lang?: string) =>
  typed<Payment>(await post(p, '/payments/wallet-token', auth, body, lang));
const mobile = async (auth: Record<string, string>, body: object, lang?: string) =>
  typed<MobilePayment>(await post(p, '/payments/mobile-wallet', auth, body, lang));
const receipt = async (paymentId: string, auth: Record<string, string>, lang?: string) =>
  typed<z.infer<typeof Receipt>>(await getReceipt(p, paymentId, auth, lang));

async function paymentRow(id: string) {
  const [row] = await p.t.db.query<Record<string, unknown>>('select * from payments where id = $1', [id]);
  return row;
}
async function orderStatus(id: string) {
  const [row] = await p.t.db.query<{ status: string }>('select status from orders where id = $1', [id]);
  return row.status;
}
async function paymentsOf(orderId: string) {
  return p.t.db.query<{ id: string; status: string }>('select id, status from payments where order_id = $1', [orderId]);
}

describe('POST /payments/create-intent', () => {
  it.each(INTENT_METHODS)(
    'with the mock provider, %s completes at once: payment completed, receipt number, order paid, activation signalled',
    async (method) => {
      const user = await payer(p);
      const order = await pendingOrder(p, user.userId);
      const res = await intent(user.auth, { orderId: order.orderId, method, idempotencyKey: newKey() });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        paymentId: match.stringMatching(UUID),
        status: 'completed',
        clientSecret: match.stringMatching(/^mock_pi_[0-9a-f]{32}_secret_mock$/),
        gatewayTransactionId: match.stringMatching(/^mock_pi_[0-9a-f]{32}$/),
      });
      const row = await paymentRow(res.body.paymentId);
      expect(row).toMatchObject({
        order_id: order.orderId,
        user_id: user.userId,
        method,
        provider: 'mock',
        status: 'completed',
        amount_minor: '4900',
        currency: 'SAR',
        gateway_transaction_id: res.body.gatewayTransactionId,
        client_secret: res.body.clientSecret,
        failure_reason: null,
      });
      expect(row.receipt_number).toMatch(/^RCP-\d{8}-[0-9A-F]{8}$/);
      expect(row.paid_at).not.toBeNull();
      expect(await orderStatus(order.orderId)).toBe('paid');
      expect(p.temporal.orderPaid).toContainEqual({ activationId: order.activationId, paymentId: res.body.paymentId });
    },
  );

  it('pays an order created through POST /activations', async () => {
    const user = await payer(p);
    const created = typed<z.infer<typeof CreateActivationResponse>>(
      await request(p.t.app).post('/activations').set(user.auth).send({ iccid: iccid(), packageId: DEMO.packages.plus }),
    );
    expect(created.status).toBe(201);
    const res = await intent(user.auth, { orderId: created.body.orderId, method: 'card_scheme_2', idempotencyKey: newKey() });
    expect([res.status, res.body.status]).toEqual([201, 'completed']);
    const [pkg] = await p.t.db.query<{ price_halalas: string }>('select price_halalas from packages where id = $1', [DEMO.packages.plus]);
    expect((await paymentRow(res.body.paymentId)).amount_minor).toBe(pkg.price_halalas);
    expect(p.temporal.orderPaid).toContainEqual({ activationId: created.body.activationId, paymentId: res.body.paymentId });
  });

  it('takes amount and currency from the order', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId, { totalAmountSar: '123.45' });
    await p.t.db.query(`update orders set currency = 'USD' where id = $1`, [order.orderId]);
    const res = await intent(user.auth, { orderId: order.orderId, method: 'generic_processor', idempotencyKey: newKey() });
    expect(res.status).toBe(201);
    expect(await paymentRow(res.body.paymentId)).toMatchObject({ amount_minor: '12345', currency: 'USD' });
  });

  it.each([
    ['amount', { amount: 1 }],
    ['currency', { currency: 'USD' }],
    ['userId', { userId: randomUUID() }],
    ['amountSar', { amountSar: '0.01' }],
  ])('never accepts %s from the body: VALIDATION_ERROR naming the field, nothing written', async (field, extra) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey(), ...extra });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).details).toContainEqual({ path: field, message: 'Unknown field' });
    expect(await paymentsOf(order.orderId)).toEqual([]);
    expect(await orderStatus(order.orderId)).toBe('pending_payment');
  });

  it.each([
    ['a non-uuid orderId', { orderId: 'order-1' }, 'orderId'],
    ['a missing orderId', { orderId: undefined }, 'orderId'],
    ['a wallet method', { method: 'wallet_token' }, 'method'],
    ['an unknown method', { method: 'cash' }, 'method'],
    ['a 7-character key', { idempotencyKey: 'k'.repeat(7) }, 'idempotencyKey'],
    ['a 129-character key', { idempotencyKey: 'k'.repeat(129) }, 'idempotencyKey'],
    ['a numeric key', { idempotencyKey: 12345678 }, 'idempotencyKey'],
  ])('answers VALIDATION_ERROR for %s', async (_label, override, path) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey(), ...override });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details.map((d) => d.path)).toContain(path);
  });

  // The key's limits (8-128) hold on every payment route.
  it.each([
    ['create-intent', intent, { method: 'card_scheme_1' }],
    ['wallet-token', wallet, { walletToken: 'tok_apple_pay_ok' }],
    ['mobile-wallet', mobile, { mobileNumber: '0512345678' }],
  ] as const)('%s accepts idempotency keys of exactly 8 and 128 characters, and refuses 7 and 129', async (_route, pay, fields) => {
    const user = await payer(p);
    for (const key of ['k'.repeat(8), 'q'.repeat(128)]) {
      const order = await pendingOrder(p, user.userId);
      expect((await pay(user.auth, { orderId: order.orderId, ...fields, idempotencyKey: key })).status).toBe(201);
    }
    const order = await pendingOrder(p, user.userId);
    for (const key of ['k'.repeat(7), 'q'.repeat(129)]) {
      const res = await pay(user.auth, { orderId: order.orderId, ...fields, idempotencyKey: key });
      expect([res.status, errorCode(res), errorOf<FieldIssue[]>(res).details[0].path]).toEqual([400, 'VALIDATION_ERROR', 'idempotencyKey']);
    }
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });

  it('refuses a NUL character in the idempotency key (PostgreSQL text cannot hold it) with VALIDATION_ERROR, nothing written', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: 'K\u0000abcdefg' });
    expect([res.status, errorCode(res), errorOf<FieldIssue[]>(res).details[0].path]).toEqual([400, 'VALIDATION_ERROR', 'idempotencyKey']);
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });

  it("answers ORDER_NOT_FOUND for an unknown order and for another user's order (localized)", async () => {
    const [owner, other] = [await payer(p), await payer(p)];
    const order = await pendingOrder(p, owner.userId);
    const unknown = await intent(other.auth, { orderId: randomUUID(), method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'ORDER_NOT_FOUND']);
    const foreign = await intent(other.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }, 'ar');
    expect([foreign.status, errorCode(foreign)]).toEqual([404, 'ORDER_NOT_FOUND']);
    expect(errorOf(foreign).message).toBe(errorCodes.ORDER_NOT_FOUND.ar);
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });

  it.each(['paid', 'completed', 'cancelled'])('answers PAYMENT_ORDER_INVALID_STATUS for an order in %s', async (status) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId, { status });
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([res.status, errorCode(res)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });

  it('answers PAYMENT_ORDER_INVALID_STATUS to a new key once the order is paid', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    expect((await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() })).status).toBe(201);
    const again = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([again.status, errorCode(again)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
  });

  it('answers PAYMENT_INTENT_FAILED when the provider declines (mock: amount ending .13); the payment is failed, the order still payable', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId, { totalAmountSar: '10.13' });
    const before = p.temporal.orderPaid.length;
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    expect([res.status, errorCode(res)]).toEqual([402, 'PAYMENT_INTENT_FAILED']);
    expect(errorOf(res).details).toEqual({ paymentId: match.stringMatching(UUID), reason: 'card_declined' });
    expect(await paymentRow(errorOf<Refusal>(res).details.paymentId)).toMatchObject({
      status: 'failed',
      failure_reason: 'card_declined',
      paid_at: null,
      receipt_number: null,
    });
    expect(await orderStatus(order.orderId)).toBe('pending_payment');
    expect(p.temporal.orderPaid.length).toBe(before);
  });

  it('answers AUTH_REQUIRED without a session or with a bad token', async () => {
    const body = { orderId: randomUUID(), method: 'card_scheme_1', idempotencyKey: newKey() };
    const none = await request(p.app).post('/payments/create-intent').send(body);
    expect([none.status, errorCode(none)]).toEqual([401, 'AUTH_REQUIRED']);
    const bad = await intent(bearer('not-a-token'), body);
    expect([bad.status, errorCode(bad)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('still answers 201 when Temporal does not take the order-paid signal: it stays pending for the relay, due at once', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    p.temporal.state.failOrderPaid = true;
    try {
      const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
      expect([res.status, res.body.status]).toEqual([201, 'completed']);
      expect(await orderStatus(order.orderId)).toBe('paid');
      // Written with the payment, in its transaction: the run hears of it once Temporal answers.
      const rows = await p.t.db.query<{ args: object; delivered_at: Date | null; due: boolean }>(
        `select args, delivered_at, next_attempt_at <= now() as due from workflow_signals where workflow_id = $1 and signal = 'orderPaid'`,
        [`activation:${order.activationId}`],
      );
      expect(rows).toEqual([{ args: { paymentId: res.body.paymentId }, delivered_at: null, due: true }]);
      expect(p.logLines.some((l) => l.includes('signal relay will deliver it') && l.includes(order.activationId))).toBe(true);
    } finally {
      p.temporal.state.failOrderPaid = false;
    }
  });

  it('never completes two payments for one order: parallel attempts with different keys settle exactly one', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() })),
    );
    const ok = answers.filter((r) => r.status === 201);
    expect(ok).toHaveLength(1);
    // The losers find the order paid, before or after their own provider call.
    for (const r of answers.filter((a) => a.status !== 201))
      expect([r.status, errorCode(r)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
    const rows = await paymentsOf(order.orderId);
    expect(rows.filter((r) => r.status === 'completed').map((r) => r.id)).toEqual([ok[0].body.paymentId]);
    expect(rows.every((r) => r.status === 'completed' || r.status === 'failed')).toBe(true);
    expect(p.temporal.orderPaid.filter((s) => s.activationId === order.activationId)).toHaveLength(1);
  });
});

describe('POST /payments/wallet-token', () => {
  it('completes with the mock provider and answers the create-intent shape', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_apple_pay_ok', idempotencyKey: newKey() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      paymentId: match.stringMatching(UUID),
      status: 'completed',
      clientSecret: match.stringMatching(/^mock_pi_/),
      gatewayTransactionId: match.stringMatching(/^mock_pi_/),
    });
    expect(await paymentRow(res.body.paymentId)).toMatchObject({ method: 'wallet_token', status: 'completed' });
    expect(await orderStatus(order.orderId)).toBe('paid');
    expect(p.temporal.orderPaid).toContainEqual({ activationId: order.activationId, paymentId: res.body.paymentId });
  });

  it('answers PAYMENT_WALLET_FAILED for a declined token (mock: tok_fail…)', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_fail', idempotencyKey: newKey() });
    expect([res.status, errorCode(res)]).toEqual([402, 'PAYMENT_WALLET_FAILED']);
    expect(errorOf(res).details).toEqual({ paymentId: match.stringMatching(UUID), reason: 'wallet_token_declined' });
    expect(await orderStatus(order.orderId)).toBe('pending_payment');
  });

  it.each([
    ['an empty walletToken', { walletToken: '' }, 'walletToken'],
    ['a missing walletToken', { walletToken: undefined }, 'walletToken'],
    ['a method field', { method: 'wallet_token' }, 'method'],
    ['an amount field', { amount: 10 }, 'amount'],
    ['a short key', { idempotencyKey: 'short' }, 'idempotencyKey'],
    ['a bad orderId', { orderId: '123' }, 'orderId'],
  ])('answers VALIDATION_ERROR for %s', async (_label, override, path) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_ok', idempotencyKey: newKey(), ...override });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details.map((d) => d.path)).toContain(path);
  });

  it('answers ORDER_NOT_FOUND, PAYMENT_ORDER_INVALID_STATUS and AUTH_REQUIRED', async () => {
    const [user, other] = [await payer(p), await payer(p)];
    const order = await pendingOrder(p, user.userId);
    const paid = await pendingOrder(p, user.userId, { status: 'paid' });
    const foreign = await wallet(other.auth, { orderId: order.orderId, walletToken: 'tok_ok', idempotencyKey: newKey() });
    expect([foreign.status, errorCode(foreign)]).toEqual([404, 'ORDER_NOT_FOUND']);
    const invalid = await wallet(user.auth, { orderId: paid.orderId, walletToken: 'tok_ok', idempotencyKey: newKey() });
    expect([invalid.status, errorCode(invalid)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
    const anon = await request(p.app)
      .post('/payments/wallet-token')
      .send({ orderId: order.orderId, walletToken: 'tok_ok', idempotencyKey: newKey() });
    expect([anon.status, errorCode(anon)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('answers PAYMENT_IDEMPOTENCY_CONFLICT for the same key with another token', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const key = newKey();
    const first = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_one', idempotencyKey: key });
    const second = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_two', idempotencyKey: key });
    expect([second.status, errorCode(second)]).toEqual([402, 'PAYMENT_IDEMPOTENCY_CONFLICT']);
    expect(errorOf(second).details).toEqual({ existingPaymentId: first.body.paymentId });
  });
});

describe('POST /payments/mobile-wallet', () => {
  it('answers processing with a redirect URL and starts settlement; the order stays pending_payment', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const before = p.temporal.orderPaid.length;
    const res = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      paymentId: match.stringMatching(UUID),
      status: 'processing',
      gatewayTransactionId: match.stringMatching(/^mock_mw_[0-9a-f]{32}$/),
      redirectUrl: `${p.t.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/mock-wallet/redirect/${res.body.paymentId}`,
    });
    expect(await paymentRow(res.body.paymentId)).toMatchObject({
      method: 'mobile_wallet',
      status: 'processing',
      redirect_url: res.body.redirectUrl,
      client_secret: null,
    });
    expect(p.temporal.settlements).toContain(res.body.paymentId);
    expect(await orderStatus(order.orderId)).toBe('pending_payment');
    expect(p.temporal.orderPaid.length).toBe(before);
  });

  it('still answers processing when settlement cannot start (logged: the processor callback starts it)', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    p.temporal.state.failSettlement = true;
    try {
      const res = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() });
      expect([res.status, res.body.status]).toEqual([201, 'processing']);
      expect(p.logLines.some((l) => l.includes('settlement workflow did not start') && l.includes(res.body.paymentId))).toBe(true);
    } finally {
      p.temporal.state.failSettlement = false;
    }
  });

  it('answers PAYMENT_MOBILE_WALLET_FAILED when initiation fails (mock: number ending 0000)', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512340000', idempotencyKey: newKey() }, 'ar');
    expect([res.status, errorCode(res)]).toEqual([402, 'PAYMENT_MOBILE_WALLET_FAILED']);
    expect(errorOf(res).message).toBe(errorCodes.PAYMENT_MOBILE_WALLET_FAILED.ar);
    expect(errorOf(res).details).toEqual({ paymentId: match.stringMatching(UUID), reason: 'mobile_wallet_rejected' });
  });

  it.each([
    ['a number not starting 05', '0612345678'],
    ['9 digits', '051234567'],
    ['11 digits', '05123456789'],
    ['international form', '+966512345678'],
    ['letters', '05abcdefgh'],
  ])('answers VALIDATION_ERROR for %s', async (_label, mobileNumber) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const res = await mobile(user.auth, { orderId: order.orderId, mobileNumber, idempotencyKey: newKey() });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details[0].path).toBe('mobileNumber');
  });

  it('answers ORDER_NOT_FOUND, PAYMENT_ORDER_INVALID_STATUS, AUTH_REQUIRED and VALIDATION_ERROR on unknown fields', async () => {
    const [user, other] = [await payer(p), await payer(p)];
    const order = await pendingOrder(p, user.userId);
    const done = await pendingOrder(p, user.userId, { status: 'completed' });
    const body = { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() };
    expect(errorCode(await mobile(other.auth, body))).toBe('ORDER_NOT_FOUND');
    const invalid = await mobile(user.auth, { ...body, orderId: done.orderId });
    expect([invalid.status, errorCode(invalid)]).toEqual([402, 'PAYMENT_ORDER_INVALID_STATUS']);
    const anon = await request(p.app).post('/payments/mobile-wallet').send(body);
    expect([anon.status, errorCode(anon)]).toEqual([401, 'AUTH_REQUIRED']);
    const extra = await mobile(user.auth, { ...body, currency: 'SAR' });
    expect([extra.status, errorCode(extra)]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('answers PAYMENT_IDEMPOTENCY_CONFLICT for the same key with another number', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const key = newKey();
    const first = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: key });
    const second = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0598765432', idempotencyKey: key });
    expect([second.status, errorCode(second), errorOf(second).details]).toEqual([
      402,
      'PAYMENT_IDEMPOTENCY_CONFLICT',
      { existingPaymentId: first.body.paymentId },
    ]);
  });
});

describe('the method table, enforced by the one policy on every route', () => {
  afterEach(() =>
    resolveContext
      .mockReset()
      .mockImplementation(jest.requireActual<typeof policy>('../../src/payments/policy').resolveOrderPaymentContext),
  );

  const asStore = (mode: policy.StoreProviderPaymentMode) =>
    resolveContext.mockResolvedValue({ orderKind: 'store', storeProviderPaymentMode: mode });

  it('allows every method for local orders (consumer and company orders alike)', async () => {
    const user = await payer(p);
    const results: number[] = [];
    for (const method of INTENT_METHODS) {
      const order = await pendingOrder(p, user.userId, { companyId: method === 'local_debit' ? randomUUID() : null });
      results.push((await intent(user.auth, { orderId: order.orderId, method, idempotencyKey: newKey() })).status);
    }
    results.push(
      (await wallet(user.auth, { orderId: (await pendingOrder(p, user.userId)).orderId, walletToken: 'tok_ok', idempotencyKey: newKey() }))
        .status,
    );
    results.push(
      (
        await mobile(user.auth, {
          orderId: (await pendingOrder(p, user.userId)).orderId,
          mobileNumber: '0512345678',
          idempotencyKey: newKey(),
        })
      ).status,
    );
    expect(results).toEqual([201, 201, 201, 201, 201, 201]);
  });

  it('store orders: local_debit and mobile_wallet are refused with PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER, nothing written', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    asStore('internal');
    const debit = await intent(user.auth, { orderId: order.orderId, method: 'local_debit', idempotencyKey: newKey() });
    expect([debit.status, errorCode(debit)]).toEqual([422, 'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER']);
    const mw = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() });
    expect([mw.status, errorCode(mw)]).toEqual([422, 'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER']);
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });

  it.each(['card_scheme_1', 'card_scheme_2', 'generic_processor'])('store orders: %s is allowed', async (method) => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    asStore('internal');
    expect((await intent(user.auth, { orderId: order.orderId, method, idempotencyKey: newKey() })).status).toBe(201);
  });

  it('store orders: wallet_token is allowed', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    asStore('internal');
    expect((await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_ok', idempotencyKey: newKey() })).status).toBe(201);
  });

  it('store orders whose provider takes payment externally fail closed on every route: STORE_PROVIDER_PAYMENT_EXTERNAL', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    asStore('external');
    const answers = [
      await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() }),
      await intent(user.auth, { orderId: order.orderId, method: 'local_debit', idempotencyKey: newKey() }),
      await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_ok', idempotencyKey: newKey() }),
      await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() }),
    ];
    expect(answers.map((r) => [r.status, errorCode(r)])).toEqual(Array(4).fill([422, 'STORE_PROVIDER_PAYMENT_EXTERNAL']));
    expect(await paymentsOf(order.orderId)).toEqual([]);
  });
});

describe('idempotency', () => {
  it('20 parallel identical requests create one payment; all 20 answers share it', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const body = { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() };
    const answers = await Promise.all(Array.from({ length: 20 }, () => intent(user.auth, body)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    const first = answers[0].body;
    for (const r of answers) expect(r.body).toEqual(first);
    expect(first.status).toBe('completed');
    expect((await paymentsOf(order.orderId)).map((r) => r.id)).toEqual([first.paymentId]);
    expect(p.temporal.orderPaid.filter((s) => s.paymentId === first.paymentId)).toHaveLength(1);
  });

  it('20 parallel identical mobile-wallet requests: one payment, one settlement start', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const body = { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() };
    const answers = await Promise.all(Array.from({ length: 20 }, () => mobile(user.auth, body)));
    expect(new Set(answers.map((r) => `${r.status} ${r.body.paymentId} ${r.body.redirectUrl}`)).size).toBe(1);
    const { paymentId } = answers[0].body;
    expect((await paymentsOf(order.orderId)).map((r) => r.id)).toEqual([paymentId]);
    expect(p.temporal.settlements.filter((id) => id === paymentId)).toHaveLength(1);
  });

  it('20 parallel requests with one key and different parameters: exactly one succeeds, the rest conflict with existingPaymentId', async () => {
    const user = await payer(p);
    const key = newKey();
    const orders = await Promise.all(Array.from({ length: 20 }, () => pendingOrder(p, user.userId)));
    const answers = await Promise.all(
      orders.map((o, i) =>
        intent(user.auth, { orderId: o.orderId, method: INTENT_METHODS[i % INTENT_METHODS.length], idempotencyKey: key }),
      ),
    );
    const ok = answers.filter((r) => r.status === 201);
    expect(ok).toHaveLength(1);
    const winner = ok[0].body.paymentId;
    const conflicts = answers.filter((r) => r.status !== 201);
    expect(conflicts).toHaveLength(19);
    for (const r of conflicts) {
      expect([r.status, errorCode(r), errorOf(r).details]).toEqual([402, 'PAYMENT_IDEMPOTENCY_CONFLICT', { existingPaymentId: winner }]);
    }
    const rows = await p.t.db.query('select id from payments where user_id = $1 and idempotency_key = $2', [user.userId, key]);
    expect(rows).toEqual([{ id: winner }]);
  });

  it('20 parallel requests with one key, same order, different methods and routes: one succeeds, the rest conflict', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const key = newKey();
    const calls = Array.from({ length: 20 }, (_, i) => {
      if (i % 6 === 4) return wallet(user.auth, { orderId: order.orderId, walletToken: `tok_${i}`, idempotencyKey: key });
      if (i % 6 === 5)
        return mobile(user.auth, { orderId: order.orderId, mobileNumber: `05000000${String(i).padStart(2, '0')}`, idempotencyKey: key });
      return intent(user.auth, { orderId: order.orderId, method: INTENT_METHODS[i % 4], idempotencyKey: key });
    });
    // Identical requests (same method and route) replay the winner; every other one conflicts.
    const answers = await Promise.all(calls);
    const rows = await paymentsOf(order.orderId);
    expect(rows).toHaveLength(1);
    for (const r of answers) {
      if (r.status === 201) expect(r.body.paymentId).toBe(rows[0].id);
      else
        expect([r.status, errorCode(r), errorOf(r).details]).toEqual([
          402,
          'PAYMENT_IDEMPOTENCY_CONFLICT',
          { existingPaymentId: rows[0].id },
        ]);
    }
    expect(answers.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(1);
  });

  it('replays a completed payment with the same answer even though the order is now paid', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const body = { orderId: order.orderId, method: 'card_scheme_2', idempotencyKey: newKey() };
    const first = await intent(user.auth, body);
    const again = await intent(user.auth, body);
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(p.temporal.orderPaid.filter((s) => s.paymentId === first.body.paymentId)).toHaveLength(1);
  });

  it('replays a failed payment as the same failure', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const body = { orderId: order.orderId, walletToken: 'tok_fail_again', idempotencyKey: newKey() };
    const first = await wallet(user.auth, body);
    const again = await wallet(user.auth, body);
    expect([again.status, errorCode(again), errorOf(again).details]).toEqual([402, 'PAYMENT_WALLET_FAILED', errorOf(first).details]);
  });

  it('conflicts for the same key on another route, with details.existingPaymentId', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const key = newKey();
    const first = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: key });
    const other = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: key });
    expect([other.status, errorCode(other), errorOf(other).details]).toEqual([
      402,
      'PAYMENT_IDEMPOTENCY_CONFLICT',
      { existingPaymentId: first.body.paymentId },
    ]);
    const sameMethod = await intent(user.auth, {
      orderId: (await pendingOrder(p, user.userId)).orderId,
      method: 'card_scheme_1',
      idempotencyKey: key,
    });
    expect(errorCode(sameMethod)).toBe('PAYMENT_IDEMPOTENCY_CONFLICT');
  });

  it('scopes keys to the user: two users may use the same key', async () => {
    const [a, b] = [await payer(p), await payer(p)];
    const key = newKey();
    const ra = await intent(a.auth, { orderId: (await pendingOrder(p, a.userId)).orderId, method: 'card_scheme_1', idempotencyKey: key });
    const rb = await intent(b.auth, { orderId: (await pendingOrder(p, b.userId)).orderId, method: 'card_scheme_1', idempotencyKey: key });
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.paymentId).not.toBe(rb.body.paymentId);
  });

  it('a replay finishes a payment whose first request never recorded the provider answer', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const key = newKey();
    const [stuck] = await p.t.db.query<{ id: string }>(
      `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint, created_at, updated_at)
       values ($1, $2, 'card_scheme_1', 'mock', 'pending', 4900, 'SAR', $3, $4, now(), now()) returning id`,
      [order.orderId, user.userId, key, fingerprintOf('create-intent', { orderId: order.orderId, method: 'card_scheme_1' })],
    );
    const res = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: key });
    expect([res.status, res.body.paymentId, res.body.status]).toEqual([201, stuck.id, 'completed']);
    expect(await orderStatus(order.orderId)).toBe('paid');
  });
});

describe('GET /payments/:id/receipt', () => {
  async function completed(lang?: string) {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId, { totalAmountSar: '149.50' });
    const paid = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    return { user, order, paymentId: paid.body.paymentId, res: await receipt(paid.body.paymentId, user.auth, lang) };
  }

  it.each(['en', 'ar'])('returns the receipt of a completed payment with both messages (Accept-Language %s)', async (lang) => {
    const { order, paymentId, res } = await completed(lang);
    const row = await paymentRow(paymentId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      receiptNumber: row.receipt_number,
      paymentId,
      orderId: order.orderId,
      amountSar: 149.5,
      currency: 'SAR',
      method: 'card_scheme_1',
      status: 'completed',
      paidAt: new Date(row.paid_at as Date).toISOString(),
      messageEn: RECEIPT_MESSAGES.completed.en,
      messageAr: RECEIPT_MESSAGES.completed.ar,
    });
    expect(res.body.receiptNumber).toMatch(/^RCP-\d{8}-[0-9A-F]{8}$/);
    expect(res.body.messageAr).toMatch(/[\u0600-\u06FF]/);
  });

  it("gives amountSar in the payment's own currency (a USD order: the USD amount)", async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId, { totalAmountSar: '12.50' });
    await p.t.db.query(`update orders set currency = 'USD' where id = $1`, [order.orderId]);
    const paid = await intent(user.auth, { orderId: order.orderId, method: 'card_scheme_1', idempotencyKey: newKey() });
    const res = await receipt(paid.body.paymentId, user.auth);
    expect(res.body).toMatchObject({ amountSar: 12.5, currency: 'USD' });
  });

  it.each(['en', 'ar'])(
    "returns a failed payment's receipt: status failed, paidAt null, retry message in both languages (%s)",
    async (lang) => {
      const user = await payer(p);
      const order = await pendingOrder(p, user.userId);
      const failed = await wallet(user.auth, { orderId: order.orderId, walletToken: 'tok_fail', idempotencyKey: newKey() });
      const paymentId = errorOf<Refusal>(failed).details.paymentId;
      const res = await receipt(paymentId, user.auth, lang);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        receiptNumber: `FAILED-${paymentId.replace(/-/g, '').slice(0, 8).toUpperCase()}`,
        paymentId,
        orderId: order.orderId,
        amountSar: 49,
        currency: 'SAR',
        method: 'wallet_token',
        status: 'failed',
        paidAt: null,
        messageEn: RECEIPT_MESSAGES.failed.en,
        messageAr: RECEIPT_MESSAGES.failed.ar,
      });
      expect(res.body.messageEn).toMatch(/try again/i);
      expect(res.body.messageAr).toContain('يرجى المحاولة مرة أخرى');
    },
  );

  it('returns a provisional receipt for a payment still processing', async () => {
    const user = await payer(p);
    const order = await pendingOrder(p, user.userId);
    const started = await mobile(user.auth, { orderId: order.orderId, mobileNumber: '0512345678', idempotencyKey: newKey() });
    const res = await receipt(started.body.paymentId, user.auth);
    expect(res.body).toMatchObject({
      receiptNumber: `PENDING-${started.body.paymentId.replace(/-/g, '').slice(0, 8).toUpperCase()}`,
      status: 'processing',
      method: 'mobile_wallet',
      paidAt: null,
      messageEn: RECEIPT_MESSAGES.processing.en,
      messageAr: RECEIPT_MESSAGES.processing.ar,
    });
  });

  it("is owner only: another user's, an unknown and a non-uuid id all answer NOT_FOUND (localized)", async () => {
    const { paymentId } = await completed();
    const other = await payer(p);
    for (const id of [paymentId, randomUUID(), 'not-a-uuid']) {
      const res = await receipt(id, other.auth, 'ar');
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'NOT_FOUND', errorCodes.NOT_FOUND.ar]);
    }
  });

  it('answers AUTH_REQUIRED without a session', async () => {
    const res = await request(p.app).get(`/payments/${randomUUID()}/receipt`);
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('answers PAYMENT_RECEIPT_FAILED when a settled payment lacks its receipt number or payment date', async () => {
    const { user, paymentId } = await completed();
    await p.t.db.query('update payments set receipt_number = null where id = $1', [paymentId]);
    const noNumber = await receipt(paymentId, user.auth, 'ar');
    expect([noNumber.status, errorCode(noNumber), errorOf(noNumber).message]).toEqual([
      402,
      'PAYMENT_RECEIPT_FAILED',
      errorCodes.PAYMENT_RECEIPT_FAILED.ar,
    ]);
    await p.t.db.query(`update payments set receipt_number = 'RCP-20260101-ABCDEF01', paid_at = null where id = $1`, [paymentId]);
    expect(errorCode(await receipt(paymentId, user.auth))).toBe('PAYMENT_RECEIPT_FAILED');
  });
});

describe('OpenAPI', () => {
  it('documents the four routes with every listed error status', () => {
    const doc = buildDocument(p.registry, 'http://localhost');
    const statuses = (path: string, method: 'get' | 'post') =>
      Object.keys((doc.paths as Record<string, Record<string, { responses: object }>>)[path][method].responses).sort();
    expect(statuses('/payments/create-intent', 'post')).toEqual(['201', '400', '401', '402', '403', '404', '422', '429', '500', '503']);
    expect(statuses('/payments/wallet-token', 'post')).toEqual(['201', '400', '401', '402', '403', '404', '422', '429', '500', '503']);
    expect(statuses('/payments/mobile-wallet', 'post')).toEqual(['201', '400', '401', '402', '403', '404', '422', '429', '500', '503']);
    expect(statuses('/payments/{id}/receipt', 'get')).toEqual(['200', '401', '402', '403', '404', '429', '500', '503']);
  });
});

describe('with the card processor configured', () => {
  let cp: PaymentsTestApp;
  let processor: Awaited<ReturnType<typeof fakeProcessor>>;
  beforeAll(async () => {
    processor = await fakeProcessor();
    cp = await createPaymentsTestApp({
      provider: createCardProcessorProvider({ apiKey: 'sk_test_local', apiBaseUrl: processor.baseUrl, maxNetworkRetries: 0 }),
    });
  });
  afterAll(async () => {
    await cp.close();
    await processor.close();
  });
  beforeEach(() => processor.seen.splice(0));

  it("create-intent answers processing with the client secret, starts settlement, leaves the order unpaid; the processor got the order's amount and the session's user", async () => {
    const user = await payer(cp);
    const order = await pendingOrder(cp, user.userId, { totalAmountSar: '123.45' });
    const res = typed<Payment>(
      await post(cp, '/payments/create-intent', user.auth, {
        orderId: order.orderId,
        method: 'card_scheme_1',
        idempotencyKey: newKey(),
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      paymentId: match.stringMatching(UUID),
      status: 'processing',
      clientSecret: 'pi_test_123_secret_abc',
      gatewayTransactionId: 'pi_test_123',
    });
    expect(processor.seen).toHaveLength(1);
    expect(processor.seen[0].headers['idempotency-key']).toBe(`payment-${res.body.paymentId}`);
    expect(processor.seen[0].form).toMatchObject({
      amount: '12345',
      currency: 'sar',
      'metadata[payment_id]': res.body.paymentId,
      'metadata[order_id]': order.orderId,
      'metadata[user_id]': user.userId,
    });
    const [row] = await cp.t.db.query('select status, provider, paid_at, receipt_number from payments where id = $1', [res.body.paymentId]);
    expect(row).toEqual({ status: 'processing', provider: 'card_processor', paid_at: null, receipt_number: null });
    expect(cp.temporal.settlements).toEqual([res.body.paymentId]);
    const [o] = await cp.t.db.query('select status from orders where id = $1', [order.orderId]);
    expect(o).toEqual({ status: 'pending_payment' });
    expect(cp.temporal.orderPaid).toEqual([]);
  });

  it('wallet-token: a decline answers PAYMENT_WALLET_FAILED with the decline code; an unreachable processor provider_unavailable', async () => {
    const user = await payer(cp);
    const declined = await post(cp, '/payments/wallet-token', user.auth, {
      orderId: (await pendingOrder(cp, user.userId)).orderId,
      walletToken: 'pm_card_declined',
      idempotencyKey: newKey(),
    });
    expect([declined.status, errorCode(declined), errorOf<Refusal>(declined).details.reason]).toEqual([
      402,
      'PAYMENT_WALLET_FAILED',
      'insufficient_funds',
    ]);
    const down = await post(cp, '/payments/wallet-token', user.auth, {
      orderId: (await pendingOrder(cp, user.userId)).orderId,
      walletToken: 'pm_server_error',
      idempotencyKey: newKey(),
    });
    expect([down.status, errorCode(down), errorOf<Refusal>(down).details.reason]).toEqual([
      402,
      'PAYMENT_WALLET_FAILED',
      'provider_unavailable',
    ]);
  });

  it('mobile-wallet is not offered by the card processor: PAYMENT_MOBILE_WALLET_FAILED', async () => {
    const user = await payer(cp);
    const res = await post(cp, '/payments/mobile-wallet', user.auth, {
      orderId: (await pendingOrder(cp, user.userId)).orderId,
      mobileNumber: '0512345678',
      idempotencyKey: newKey(),
    });
    expect([res.status, errorCode(res)]).toEqual([402, 'PAYMENT_MOBILE_WALLET_FAILED']);
    expect(processor.seen).toEqual([]);
  });
});
