import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { OrderStatus, PaymentMethod, PaymentProviderName, PaymentStatus } from '../entities';
import type { ErrorCode } from '../http/error-codes';
import { AppError } from '../http/errors';
import type { ActivationWorkflows } from '../temporal/activations';
import type { PaymentWorkflows } from '../temporal/payments';
import { toMinorUnits } from './money';
import { assertMethodAllowed, resolveOrderPaymentContext } from './policy';
import type { PaymentProvider, ProviderPaymentInput, ProviderResult } from './providers';
import type { IntentMethod } from './schemas';
import { completePayment, failPayment } from './settle';
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
  orm: MikroORM;
  provider: PaymentProvider;
  paymentWorkflows: PaymentWorkflows;
  activationWorkflows: ActivationWorkflows;
  clock: () => Date;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** How long a replay waits for the first request to record its provider answer before driving it itself. */
  pendingWaitMs?: number;
  /** A payment `pending` this long was left by a request that died mid-call (longer than any provider call takes). */
  abandonedAfterMs?: number;
}

interface OrderRow {
  id: string;
  user_id: string;
  company_id: string | null;
  status: OrderStatus;
  total_amount_sar: string;
  currency: string;
}

export interface PaymentRow {
  id: string;
  order_id: string;
  user_id: string;
  method: PaymentMethod;
  provider: PaymentProviderName;
  status: PaymentStatus;
  amount: string;
  currency: string;
  idempotency_key: string;
  request_fingerprint: string;
  gateway_transaction_id: string | null;
  client_secret: string | null;
  redirect_url: string | null;
  receipt_number: string | null;
  failure_reason: string | null;
  /** ISO 8601 UTC with milliseconds (selected with to_char: the driver returns timestamps as text). */
  paid_at: string | null;
}

/** A payment that holds its order (`pending` or `processing`), with its creation time in epoch milliseconds. */
interface LivePayment extends PaymentRow {
  created_ms: string;
}

/** Every column the service reads, paid_at already in the API's timestamp format. */
const COLUMNS = `id, order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint, gateway_transaction_id,
  client_secret, redirect_url, receipt_number, failure_reason, to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as paid_at`;

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
  const { orm, provider, clock, logger } = deps;
  const pendingWaitMs = deps.pendingWaitMs ?? 10_000;
  const abandonedAfterMs = deps.abandonedAfterMs ?? ABANDONED_AFTER_MS;

  async function ownedOrder(userId: string, orderId: string): Promise<OrderRow> {
    const [order] = await orm.em
      .fork()
      .execute<OrderRow[]>('select id, user_id, company_id, status, total_amount_sar, currency from orders where id = ? and user_id = ?', [
        orderId,
        userId,
      ]);
    if (!order) throw new AppError('ORDER_NOT_FOUND');
    return order;
  }

  async function loadByKey(userId: string, key: string): Promise<PaymentRow | undefined> {
    const [row] = await orm.em
      .fork()
      .execute<PaymentRow[]>(`select ${COLUMNS} from payments where user_id = ? and idempotency_key = ?`, [userId, key]);
    return row;
  }

  async function load(paymentId: string): Promise<PaymentRow> {
    const [row] = await orm.em.fork().execute<PaymentRow[]>(`select ${COLUMNS} from payments where id = ?`, [paymentId]);
    if (!row) throw new Error(`payment ${paymentId} vanished`);
    return row;
  }

  /** The order's live payment (at most one: payments_order_live_unique), with its age. */
  async function loadLive(orderId: string): Promise<LivePayment | undefined> {
    const [row] = await orm.em
      .fork()
      .execute<LivePayment[]>(
        `select ${COLUMNS}, extract(epoch from created_at) * 1000 as created_ms from payments where order_id = ? and status in ('pending', 'processing')`,
        [orderId],
      );
    return row;
  }

  /**
   * Inserts the pending payment, or nothing when the key is taken or the order already has a live payment. The order's
   * status is checked after the insert, under a share lock, so an order paid
   * meanwhile refuses the new payment (the insert rolls back). Insert first,
   * lock second: a request waiting on a taken key holds no order lock, so it
   * can never deadlock with a completion that holds the order.
   */
  async function insertPending(userId: string, order: OrderRow, req: PayRequest, fingerprint: string): Promise<PaymentRow | null> {
    return orm.em.fork().transactional(async (em) => {
      const now = clock();
      const [row] = await em.execute<PaymentRow[]>(
        `insert into payments (order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint, created_at, updated_at)
         values (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)
         on conflict do nothing
         returning ${COLUMNS}`,
        [order.id, userId, req.method, provider.name, order.total_amount_sar, order.currency, req.idempotencyKey, fingerprint, now, now],
      );
      if (!row) return null;
      const [current] = await em.execute<{ status: OrderStatus }[]>('select status from orders where id = ? for share', [order.id]);
      if (current?.status !== 'pending_payment') throw new AppError('PAYMENT_ORDER_INVALID_STATUS');
      return row;
    });
  }

  function callProvider(route: PaymentRoute, input: ProviderPaymentInput, req: PayRequest): Promise<ProviderResult> {
    if (route === 'wallet-token') return provider.payWithWalletToken({ ...input, walletToken: req.walletToken! });
    if (route === 'mobile-wallet') return provider.startMobileWallet({ ...input, mobileNumber: req.mobileNumber! });
    return provider.createIntent(input);
  }

  /** Calls the provider for a pending payment (no transaction open) and records its answer. */
  async function drive(route: PaymentRoute, row: PaymentRow, req: PayRequest): Promise<PaymentRow> {
    let result: ProviderResult;
    try {
      result = await callProvider(
        route,
        {
          paymentId: row.id,
          orderId: row.order_id,
          userId: row.user_id,
          amountMinor: toMinorUnits(row.amount, row.currency),
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

  const setGateway = `gateway_transaction_id = coalesce(?, gateway_transaction_id), client_secret = coalesce(?, client_secret),
                      redirect_url = coalesce(?, redirect_url), updated_at = ?`;
  const gatewayParams = (r: ProviderResult, now: Date) => [r.gatewayTransactionId, r.clientSecret ?? null, r.redirectUrl ?? null, now];

  async function record(row: PaymentRow, result: ProviderResult): Promise<void> {
    const now = clock();
    if (result.status === 'completed') {
      const settled = await orm.em.fork().transactional(async (em) => {
        // The order row lock makes "one completed payment per order" hold between parallel attempts with different keys.
        const [order] = await em.execute<{ status: OrderStatus }[]>('select status from orders where id = ? for update', [row.order_id]);
        const touched = await em.execute<{ id: string }[]>(
          `update payments set ${setGateway} where id = ? and status = 'pending' returning id`,
          [...gatewayParams(result, now), row.id],
        );
        if (touched.length === 0) return null;
        if (order?.status !== 'pending_payment') {
          await failPayment(em, row.id, FAILURE_REASONS.orderAlreadyPaid, now);
          return null;
        }
        return completePayment(em, row.id, now);
      });
      if (settled?.changed && settled.activationId) {
        try {
          await deps.activationWorkflows.orderPaid(settled.activationId, row.id);
        } catch (err) {
          // The payment and order are committed; the activation's settlement fallback picks it up.
          logger.error({ err, paymentId: row.id, activationId: settled.activationId }, 'order-paid signal failed after payment completed');
        }
      }
      return;
    }
    if (result.status === 'processing') {
      const touched = await orm.em
        .fork()
        .execute<{ id: string }[]>(
          `update payments set status = 'processing', ${setGateway} where id = ? and status = 'pending' returning id`,
          [...gatewayParams(result, now), row.id],
        );
      if (touched.length > 0) {
        try {
          await deps.paymentWorkflows.startSettlement(row.id);
        } catch (err) {
          // The processor's callback starts settlement too (signal-with-start): the payment is not lost.
          logger.error({ err, paymentId: row.id }, 'settlement workflow did not start; the processor callback will start it');
        }
      }
      return;
    }
    await orm.em.fork().transactional(async (em: EntityManager) => {
      await em.execute(`update payments set ${setGateway} where id = ? and status = 'pending'`, [...gatewayParams(result, now), row.id]);
      await failPayment(em, row.id, result.failureReason ?? 'failed', now);
    });
  }

  /** Polls a `pending` payment until its request records the provider's answer, at most pendingWaitMs. */
  async function waitWhilePending(row: PaymentRow): Promise<PaymentRow> {
    const deadline = Date.now() + pendingWaitMs;
    let current = row;
    while (current.status === 'pending' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      current = await load(row.id);
    }
    return current;
  }

  /** A replay found its payment still `pending`: wait for the first request, then drive it if that one never finished. */
  async function settleReplay(route: PaymentRoute, row: PaymentRow, req: PayRequest): Promise<PaymentRow> {
    const current = await waitWhilePending(row);
    return current.status === 'pending' ? drive(route, current, req) : current;
  }

  const inProgress = (live: PaymentRow) =>
    new AppError('PAYMENT_ORDER_INVALID_STATUS', { details: { paymentId: live.id, reason: PAYMENT_IN_PROGRESS } });

  /** Fails a live payment that can no longer be paid, so it stops holding the order. */
  async function release(live: PaymentRow, reason: string): Promise<void> {
    await orm.em
      .fork()
      .transactional((em) => failPayment(em, live.id, reason, clock(), { onlyIfProcessing: live.status === 'processing' }));
    logger.warn({ paymentId: live.id, orderId: live.order_id, reason }, 'live payment released for a new request');
  }

  /** Only the processor's word releases a processing payment: its intent is cancelled, so it can never be confirmed. */
  async function cancelledAtProcessor(live: PaymentRow): Promise<boolean> {
    if (live.provider !== provider.name || !live.gateway_transaction_id) return false;
    try {
      return (await provider.retrieveIntent(live.gateway_transaction_id))?.status === 'canceled';
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
  async function meetLive(route: PaymentRoute, live: LivePayment, req: PayRequest, fingerprint: string): Promise<PaymentRow | null> {
    const abandoned = () => clock().getTime() - Number(live.created_ms) >= abandonedAfterMs;
    let current: PaymentRow = live;
    if (current.status === 'pending') {
      if (!abandoned()) current = await waitWhilePending(current);
      if (current.status === 'pending') {
        if (!abandoned()) throw inProgress(current);
        // Its request died before recording the provider's answer: the same request takes it over, any other frees the order.
        if (current.request_fingerprint === fingerprint) return drive(route, current, req);
        await release(current, FAILURE_REASONS.abandoned);
        return null;
      }
      if (current.status !== 'processing') return null;
    }
    if (await cancelledAtProcessor(current)) {
      await release(current, FAILURE_REASONS.intentCanceled);
      return null;
    }
    if (current.request_fingerprint === fingerprint) return current;
    throw inProgress(current);
  }

  function answer(route: PaymentRoute, row: PaymentRow): PaymentResult | MobileWalletResult {
    if (row.status === 'failed') {
      // Another payment completed the order while this one ran: the order is no longer payable.
      const code = row.failure_reason === FAILURE_REASONS.orderAlreadyPaid ? 'PAYMENT_ORDER_INVALID_STATUS' : FAILURE_CODES[route];
      throw new AppError(code, { details: { paymentId: row.id, reason: row.failure_reason } });
    }
    const gatewayTransactionId = row.gateway_transaction_id ?? '';
    if (route === 'mobile-wallet')
      return { paymentId: row.id, status: row.status, gatewayTransactionId, redirectUrl: row.redirect_url ?? '' };
    return { paymentId: row.id, status: row.status, clientSecret: row.client_secret ?? '', gatewayTransactionId };
  }

  async function pay(route: PaymentRoute, userId: string, req: PayRequest) {
    const order = await ownedOrder(userId, req.orderId);
    assertMethodAllowed({ ...(await resolveOrderPaymentContext(order)), method: req.method });
    const fingerprint = fingerprintOf(route, req);
    // Another round when the key's payment rolled back (order not payable) or the live payment just settled or was released.
    let live: LivePayment | undefined;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const created = await insertPending(userId, order, req, fingerprint);
      if (created) return answer(route, await drive(route, created, req));
      const existing = await loadByKey(userId, req.idempotencyKey);
      if (existing) {
        if (existing.request_fingerprint !== fingerprint) {
          throw new AppError('PAYMENT_IDEMPOTENCY_CONFLICT', { details: { existingPaymentId: existing.id } });
        }
        return answer(route, existing.status === 'pending' ? await settleReplay(route, existing, req) : existing);
      }
      live = await loadLive(order.id);
      const met = live ? await meetLive(route, live, req, fingerprint) : null;
      if (met) return answer(route, met);
    }
    if (live) throw inProgress(live);
    throw new Error('payment neither inserted nor found');
  }

  async function receipt(userId: string, paymentId: string): Promise<Receipt> {
    if (!isUuid(paymentId)) throw new AppError('NOT_FOUND');
    const [row] = await orm.em
      .fork()
      .execute<PaymentRow[]>(`select ${COLUMNS} from payments where id = ? and user_id = ?`, [paymentId, userId]);
    if (!row) throw new AppError('NOT_FOUND');
    return receiptOf(row);
  }

  /** PAYMENT_RECEIPT_FAILED when the row cannot back a truthful receipt (a settled payment without number or date). */
  function receiptOf(row: PaymentRow): Receipt {
    const settled = row.status === 'completed' || row.status === 'refunded';
    const amount = Number(row.amount);
    if ((settled && (!row.receipt_number || !row.paid_at)) || !Number.isFinite(amount)) {
      logger.error({ paymentId: row.id, status: row.status }, 'receipt cannot be produced: inconsistent payment row');
      throw new AppError('PAYMENT_RECEIPT_FAILED');
    }
    const message = RECEIPT_MESSAGES[row.status];
    return {
      receiptNumber: row.receipt_number ?? provisionalReceiptNumber(row.id, row.status),
      paymentId: row.id,
      orderId: row.order_id,
      amountSar: amount,
      currency: row.currency,
      method: row.method,
      status: row.status,
      paidAt: settled ? row.paid_at : null,
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
