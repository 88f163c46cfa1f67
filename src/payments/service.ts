import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../db/sql';
import type { PaymentMethod, PaymentStatus } from '../entities';
import type { ErrorCode } from '../http/error-codes';
import { AppError } from '../http/errors';
import type { PaymentRuns } from './runs';
import { pendingSignal, type EnqueuedSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import type { StoreOrderPayments } from './store-orders';
import { fromMinorUnits } from '../lib/money';
import { assertMethodAllowed, resolveOrderPaymentContext } from './policy';
import type { PaymentProvider, ProviderPaymentInput, ProviderResult } from './providers';
import type { IntentMethod } from './schemas';
import * as repo from './repository';
import type { LivePayment, OrderToPay, Payment } from './repository';
import { completePayment } from './settle';
import { isUuid } from '../http/fields';

export type PaymentRoute = 'create-intent' | 'wallet-token' | 'mobile-wallet';

/** Each route's failure code: the provider refused, or could not be reached. */
export const FAILURE_CODES: Record<PaymentRoute, ErrorCode> = {
  'create-intent': 'PAYMENT_INTENT_FAILED',
  'wallet-token': 'PAYMENT_WALLET_FAILED',
  'mobile-wallet': 'PAYMENT_MOBILE_WALLET_FAILED',
};

/** Failure reasons the service itself writes (providers add their own decline codes). */
export const FAILURE_REASONS = {
  providerUnavailable: 'provider_unavailable',
  orderAlreadyPaid: 'order_already_paid',
  /** The processor cancelled the intent of a live payment: it can never be paid, so it no longer holds the order. */
  intentCanceled: 'intent_canceled',
  /** A payment left `pending` by a request that died before recording the provider's answer. */
  abandoned: 'abandoned',
} as const;

/** details.reason of PAYMENT_ORDER_INVALID_STATUS while another payment of the order is live. */
export const PAYMENT_IN_PROGRESS = 'payment_in_progress';

/** Receipt texts by payment status; both languages are always returned. */
export const RECEIPT_MESSAGES: Record<PaymentStatus, { en: string; ar: string }> = {
  completed: { en: 'Payment received. Thank you.', ar: 'تم استلام دفعتك بنجاح. شكراً لك.' },
  refunded: { en: 'This payment has been refunded.', ar: 'تم استرداد مبلغ هذه الدفعة.' },
  processing: {
    en: 'Your payment is being processed. This receipt becomes final once the payment is confirmed.',
    ar: 'دفعتك قيد المعالجة، ويصبح هذا الإيصال نهائياً بعد تأكيد الدفع.',
  },
  pending: {
    en: 'Your payment is being processed. This receipt becomes final once the payment is confirmed.',
    ar: 'دفعتك قيد المعالجة، ويصبح هذا الإيصال نهائياً بعد تأكيد الدفع.',
  },
  failed: {
    en: 'Your payment was not completed. Please try again, or choose another payment method.',
    ar: 'لم تكتمل عملية الدفع. يرجى المحاولة مرة أخرى أو اختيار طريقة دفع أخرى.',
  },
};

export interface PaymentServiceDeps {
  db: Db;
  provider: PaymentProvider;
  paymentRuns: PaymentRuns;
  /** Delivers "order paid" to the activation's or the store order's run (written with the payment). */
  signals: WorkflowSignals;
  /** The store's face: a store order's provider payment mode (the method table) and its `paid` on completion. */
  storeOrderPayments: Pick<StoreOrderPayments, 'paymentModeOf' | 'markPaid'>;
  clock: () => Date;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** How long a replay waits for the first request to record its provider answer before driving it itself. */
  pendingWaitMs?: number;
  /** A payment `pending` this long was left by a request that died mid-call (longer than any provider call takes). */
  abandonedAfterMs?: number;
}

interface PayRequest {
  orderId: string;
  method: PaymentMethod;
  idempotencyKey: string;
  /** Route-specific parameters: part of the fingerprint (hashed, never stored), handed to the provider. */
  walletToken?: string;
  mobileNumber?: string;
}

export interface PaymentResult {
  paymentId: string;
  status: PaymentStatus;
  clientSecret: string;
  gatewayTransactionId: string;
}

export interface MobileWalletResult {
  paymentId: string;
  status: PaymentStatus;
  gatewayTransactionId: string;
  redirectUrl: string;
}

export interface Receipt {
  receiptNumber: string;
  paymentId: string;
  orderId: string;
  amountSar: number;
  currency: string;
  method: PaymentMethod;
  status: PaymentStatus;
  paidAt: string | null;
  messageEn: string;
  messageAr: string;
}

const POLL_MS = 25;
/** Stripe's client: 20 s timeout, 3 attempts with backoff; nothing legitimately stays `pending` this long. */
const ABANDONED_AFTER_MS = 120_000;
/** Rounds of insert → meet the live payment; each round ends with an answer unless a live payment just settled or was released. */
const MAX_ROUNDS = 4;

/**
 * What a replay must match: the route and every parameter of the body but the
 * key. Tokens and numbers enter only as part of this hash.
 */
export function fingerprintOf(route: PaymentRoute, req: Omit<PayRequest, 'idempotencyKey'>): string {
  const parts = [route, req.orderId, req.method, req.walletToken ?? null, req.mobileNumber ?? null];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Receipt number shown before a payment has its own (`PENDING-` / `FAILED-` + start of the payment id). */
export function provisionalReceiptNumber(paymentId: string, status: PaymentStatus): string {
  return `${status === 'failed' ? 'FAILED' : 'PENDING'}-${paymentId.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
}

/**
 * create-intent, wallet-token, mobile-wallet and receipts.
 *
 * A payment is written `pending` first (the (user, idempotency key) unique
 * constraint decides which of parallel requests creates it, and the partial
 * unique index payments_order_live_unique keeps one live payment, `pending` or
 * `processing`, per order: see meetLive), the provider is
 * called outside any transaction, then its answer is recorded:
 * completed (mock) → payment completed, receipt number, order paid, then the
 * activation is signalled; processing → settlement workflow started;
 * failed → payment failed and the route's *_FAILED code (details.paymentId,
 * details.reason), so the client can show the failed receipt.
 */
export function createPaymentService(deps: PaymentServiceDeps) {
  const { db, provider, storeOrderPayments, clock, logger } = deps;
  const pendingWaitMs = deps.pendingWaitMs ?? 10_000;
  const abandonedAfterMs = deps.abandonedAfterMs ?? ABANDONED_AFTER_MS;

  async function ownedOrder(userId: string, orderId: string): Promise<OrderToPay> {
    const order = await repo.findOwnedOrder(db, orderId, userId);
    if (!order) throw new AppError('ORDER_NOT_FOUND');
    return order;
  }

  async function load(paymentId: string): Promise<Payment> {
    const row = await repo.findPayment(db, paymentId);
    if (!row) throw new Error(`payment ${paymentId} vanished`);
    return row;
  }

  /**
   * Inserts the pending payment, or nothing when the key is taken or the order already has a live payment. The order's
   * status is checked after the insert, under a share lock, so an order paid
   * meanwhile refuses the new payment (the insert rolls back). Insert first,
   * lock second: a request waiting on a taken key holds no order lock, so it
   * can never deadlock with a completion that holds the order.
   */
  async function insertPending(userId: string, order: OrderToPay, req: PayRequest, fingerprint: string): Promise<Payment | null> {
    return db.transaction(async (tx) => {
      const row = await repo.insertPendingPayment(tx, {
        order,
        userId,
        method: req.method,
        provider: provider.name,
        idempotencyKey: req.idempotencyKey,
        requestFingerprint: fingerprint,
        now: clock(),
      });
      if (!row) return null;
      if ((await repo.findOrderStatus(tx, order.id, 'share')) !== 'pending_payment') throw new AppError('PAYMENT_ORDER_INVALID_STATUS');
      return row;
    });
  }

  function callProvider(route: PaymentRoute, input: ProviderPaymentInput, req: PayRequest): Promise<ProviderResult> {
    if (route === 'wallet-token') return provider.payWithWalletToken({ ...input, walletToken: req.walletToken! });
    if (route === 'mobile-wallet') return provider.startMobileWallet({ ...input, mobileNumber: req.mobileNumber! });
    return provider.createIntent(input);
  }

  /** Calls the provider for a pending payment (no transaction open) and records its answer. */
  async function drive(route: PaymentRoute, row: Payment, req: PayRequest): Promise<Payment> {
    let result: ProviderResult;
    try {
      result = await callProvider(
        route,
        {
          paymentId: row.id,
          orderId: row.orderId,
          userId: row.userId,
          amountMinor: BigInt(row.amountMinor),
          currency: row.currency,
          method: row.method,
          // One processor-side key per payment row: a retried or taken-over call never creates a second intent.
          idempotencyKey: `payment-${row.id}`,
        },
        req,
      );
    } catch (err) {
      logger.error({ err, paymentId: row.id, route }, 'payment provider call failed');
      result = { status: 'failed', gatewayTransactionId: null, failureReason: FAILURE_REASONS.providerUnavailable };
    }
    await record(row, result);
    return load(row.id);
  }

  async function record(row: Payment, result: ProviderResult): Promise<void> {
    const now = clock();
    if (result.status === 'completed') {
      const paid = await db.transaction(async (tx) => {
        // The order row lock makes "one completed payment per order" hold between parallel attempts with different keys.
        const orderStatus = await repo.findOrderStatus(tx, row.orderId, 'update');
        if (!(await repo.recordGateway(tx, row.id, result, now))) return [];
        if (orderStatus !== 'pending_payment') {
          await repo.failPayment(tx, row.id, FAILURE_REASONS.orderAlreadyPaid, now);
          return [];
        }
        const settled = await completePayment(tx, row.id, now, storeOrderPayments);
        if (!settled?.changed) return [];
        // The run learns it in order with the rest it is told, even when Temporal is away at this commit.
        const signals: EnqueuedSignal[] = [];
        if (settled.activationId) signals.push(await deps.signals.enqueue(tx, pendingSignal.activationPaid(settled.activationId, row.id)));
        if (settled.storeOrderId) signals.push(await deps.signals.enqueue(tx, pendingSignal.storeOrderPaid(settled.storeOrderId, row.id)));
        return signals;
      });
      await deps.signals.launch(paid);
      return;
    }
    if (result.status === 'processing') {
      if (await repo.markProcessing(db, row.id, result, now)) {
        try {
          await deps.paymentRuns.startSettlement(row.id);
        } catch (err) {
          // The processor's callback starts settlement too (signal-with-start): the payment is not lost.
          logger.error({ err, paymentId: row.id }, 'settlement workflow did not start; the processor callback will start it');
        }
      }
      return;
    }
    await db.transaction(async (tx) => {
      await repo.recordGateway(tx, row.id, result, now);
      await repo.failPayment(tx, row.id, result.failureReason ?? 'failed', now);
    });
  }

  /** Polls a `pending` payment until its request records the provider's answer, at most pendingWaitMs. */
  async function waitWhilePending(row: Payment): Promise<Payment> {
    const deadline = Date.now() + pendingWaitMs;
    let current = row;
    while (current.status === 'pending' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      current = await load(row.id);
    }
    return current;
  }

  /** A replay found its payment still `pending`: wait for the first request, then drive it if that one never finished. */
  async function settleReplay(route: PaymentRoute, row: Payment, req: PayRequest): Promise<Payment> {
    const current = await waitWhilePending(row);
    return current.status === 'pending' ? drive(route, current, req) : current;
  }

  const inProgress = (live: Payment) =>
    new AppError('PAYMENT_ORDER_INVALID_STATUS', { details: { paymentId: live.id, reason: PAYMENT_IN_PROGRESS } });

  /** Fails a live payment that can no longer be paid, so it stops holding the order. */
  async function release(live: Payment, reason: string): Promise<void> {
    await repo.failPayment(db, live.id, reason, clock(), { onlyIfProcessing: live.status === 'processing' });
    logger.warn({ paymentId: live.id, orderId: live.orderId, reason }, 'live payment released for a new request');
  }

  /** Only the processor's word releases a processing payment: its intent is cancelled, so it can never be confirmed. */
  async function cancelledAtProcessor(live: Payment): Promise<boolean> {
    if (live.provider !== provider.name || !live.gatewayTransactionId) return false;
    try {
      return (await provider.retrieveIntent(live.gatewayTransactionId))?.status === 'canceled';
    } catch (err) {
      logger.warn({ err, paymentId: live.id }, 'processor not reachable to check a live payment; it stays live');
      return false;
    }
  }

  /**
   * A new key met the order's live payment (pending or processing). Answers the row this request gets
   * (the live payment, when the request is the same as the one that made it: route, method, token or
   * number), null when the live payment settled or was released meanwhile (the caller inserts again),
   * or throws PAYMENT_ORDER_INVALID_STATUS (details.reason payment_in_progress, details.paymentId).
   * Age alone never releases a processing payment: its intent can still be confirmed with the client
   * secret already handed out, which is the double charge this rule exists to prevent.
   */
  async function meetLive(route: PaymentRoute, live: LivePayment, req: PayRequest, fingerprint: string): Promise<Payment | null> {
    const abandoned = () => clock().getTime() - Number(live.createdMs) >= abandonedAfterMs;
    let current: Payment = live;
    if (current.status === 'pending') {
      if (!abandoned()) current = await waitWhilePending(current);
      if (current.status === 'pending') {
        if (!abandoned()) throw inProgress(current);
        // Its request died before recording the provider's answer: the same request takes it over, any other frees the order.
        if (current.requestFingerprint === fingerprint) return drive(route, current, req);
        await release(current, FAILURE_REASONS.abandoned);
        return null;
      }
      if (current.status !== 'processing') return null;
    }
    if (await cancelledAtProcessor(current)) {
      await release(current, FAILURE_REASONS.intentCanceled);
      return null;
    }
    if (current.requestFingerprint === fingerprint) return current;
    throw inProgress(current);
  }

  function answer(route: PaymentRoute, row: Payment): PaymentResult | MobileWalletResult {
    if (row.status === 'failed') {
      // Another payment completed the order while this one ran: the order is no longer payable.
      const code = row.failureReason === FAILURE_REASONS.orderAlreadyPaid ? 'PAYMENT_ORDER_INVALID_STATUS' : FAILURE_CODES[route];
      throw new AppError(code, { details: { paymentId: row.id, reason: row.failureReason } });
    }
    const gatewayTransactionId = row.gatewayTransactionId ?? '';
    if (route === 'mobile-wallet')
      return { paymentId: row.id, status: row.status, gatewayTransactionId, redirectUrl: row.redirectUrl ?? '' };
    return { paymentId: row.id, status: row.status, clientSecret: row.clientSecret ?? '', gatewayTransactionId };
  }

  async function pay(route: PaymentRoute, userId: string, req: PayRequest) {
    const order = await ownedOrder(userId, req.orderId);
    assertMethodAllowed({
      ...(await resolveOrderPaymentContext(db, { id: order.id, company_id: order.companyId }, storeOrderPayments)),
      method: req.method,
    });
    const fingerprint = fingerprintOf(route, req);
    // Another round when the key's payment rolled back (order not payable) or the live payment just settled or was released.
    let live: LivePayment | undefined;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const created = await insertPending(userId, order, req, fingerprint);
      if (created) return answer(route, await drive(route, created, req));
      const existing = await repo.findPaymentByKey(db, userId, req.idempotencyKey);
      if (existing) {
        if (existing.requestFingerprint !== fingerprint) {
          throw new AppError('PAYMENT_IDEMPOTENCY_CONFLICT', { details: { existingPaymentId: existing.id } });
        }
        return answer(route, existing.status === 'pending' ? await settleReplay(route, existing, req) : existing);
      }
      live = await repo.findLivePayment(db, order.id);
      const met = live ? await meetLive(route, live, req, fingerprint) : null;
      if (met) return answer(route, met);
    }
    if (live) throw inProgress(live);
    throw new Error('payment neither inserted nor found');
  }

  async function receipt(userId: string, paymentId: string): Promise<Receipt> {
    if (!isUuid(paymentId)) throw new AppError('NOT_FOUND');
    const row = await repo.findPaymentOfUser(db, paymentId, userId);
    if (!row) throw new AppError('NOT_FOUND');
    return receiptOf(row);
  }

  /** PAYMENT_RECEIPT_FAILED when the row cannot back a truthful receipt (a settled payment without number or date). */
  function receiptOf(row: Payment): Receipt {
    const settled = row.status === 'completed' || row.status === 'refunded';
    const amount = Number(fromMinorUnits(row.amountMinor, row.currency));
    if ((settled && (!row.receiptNumber || !row.paidAt)) || !Number.isFinite(amount)) {
      logger.error({ paymentId: row.id, status: row.status }, 'receipt cannot be produced: inconsistent payment row');
      throw new AppError('PAYMENT_RECEIPT_FAILED');
    }
    const message = RECEIPT_MESSAGES[row.status];
    return {
      receiptNumber: row.receiptNumber ?? provisionalReceiptNumber(row.id, row.status),
      paymentId: row.id,
      orderId: row.orderId,
      amountSar: amount,
      currency: row.currency,
      method: row.method,
      status: row.status,
      paidAt: settled ? row.paidAt : null,
      messageEn: message.en,
      messageAr: message.ar,
    };
  }

  return {
    createIntent: (userId: string, body: { orderId: string; method: IntentMethod; idempotencyKey: string }) =>
      pay('create-intent', userId, body) as Promise<PaymentResult>,
    walletToken: (userId: string, body: { orderId: string; walletToken: string; idempotencyKey: string }) =>
      pay('wallet-token', userId, { ...body, method: 'wallet_token' }) as Promise<PaymentResult>,
    mobileWallet: (userId: string, body: { orderId: string; mobileNumber: string; idempotencyKey: string }) =>
      pay('mobile-wallet', userId, { ...body, method: 'mobile_wallet' }) as Promise<MobileWalletResult>,
    receipt,
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
