import { query, type Sql } from '../db/sql';
import type { OrderStatus, PaymentMethod, PaymentProviderName, PaymentStatus } from '../entities';
import type { ProviderResult } from './providers';

/**
 * The SQL of payments: the payment routes' rows (create-intent, wallet-token, mobile-wallet, receipts),
 * settlement (completing, failing, the order's lock), and the payment events in webhook_events
 * (mismatches, settlement receipts, duplicate charges). Services and activities call these with the
 * pool or with the transaction they opened (docs/architecture.md, "Data access").
 */

// --- The payment routes ---------------------------------------------------------------------------

/** The order a payment is for, as its owner may pay it. */
export interface OrderToPay {
  id: string;
  userId: string;
  companyId: string | null;
  status: OrderStatus;
  /** Whole halalas (bigint, as text): the minor units of `currency`, which is SAR for every order the app writes. */
  totalHalalas: string;
  currency: string;
}

/** A payments row as the payment routes read it. */
export interface Payment {
  id: string;
  orderId: string;
  userId: string;
  method: PaymentMethod;
  provider: PaymentProviderName;
  status: PaymentStatus;
  /** Integer minor units of `currency` (bigint, as text). */
  amountMinor: string;
  currency: string;
  idempotencyKey: string;
  requestFingerprint: string;
  gatewayTransactionId: string | null;
  clientSecret: string | null;
  redirectUrl: string | null;
  receiptNumber: string | null;
  failureReason: string | null;
  /** ISO 8601 UTC with milliseconds (selected with to_char, in the API's timestamp format). */
  paidAt: string | null;
}

/** A payment that holds its order (`pending` or `processing`), with its creation time in epoch milliseconds. */
export interface LivePayment extends Payment {
  /** numeric, as text. */
  createdMs: string;
}

/** Every column the service reads, paidAt already in the API's timestamp format. */
const COLUMNS = `id, order_id as "orderId", user_id as "userId", method, provider, status, amount_minor as "amountMinor", currency,
  idempotency_key as "idempotencyKey", request_fingerprint as "requestFingerprint", gateway_transaction_id as "gatewayTransactionId",
  client_secret as "clientSecret", redirect_url as "redirectUrl", receipt_number as "receiptNumber", failure_reason as "failureReason",
  to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "paidAt"`;

const OWNED_ORDER = query(
  'payments.owned-order',
  `select id, user_id as "userId", company_id as "companyId", status, total_halalas as "totalHalalas", currency
     from orders where id = $1 and user_id = $2`,
);

export async function findOwnedOrder(sql: Sql, orderId: string, userId: string): Promise<OrderToPay | undefined> {
  return sql.one<OrderToPay>(OWNED_ORDER, [orderId, userId]);
}

const FIND = query('payments.find', `select ${COLUMNS} from payments where id = $1`);
const FIND_OF_USER = query('payments.find-of-user', `select ${COLUMNS} from payments where id = $1 and user_id = $2`);
const FIND_BY_KEY = query('payments.find-by-key', `select ${COLUMNS} from payments where user_id = $1 and idempotency_key = $2`);
const FIND_LIVE = query(
  'payments.find-live',
  `select ${COLUMNS}, extract(epoch from created_at) * 1000 as "createdMs" from payments where order_id = $1 and status in ('pending', 'processing')`,
);

export async function findPayment(sql: Sql, id: string): Promise<Payment | undefined> {
  return sql.one<Payment>(FIND, [id]);
}

/** The payment when it is the user's own. */
export async function findPaymentOfUser(sql: Sql, id: string, userId: string): Promise<Payment | undefined> {
  return sql.one<Payment>(FIND_OF_USER, [id, userId]);
}

export async function findPaymentByKey(sql: Sql, userId: string, idempotencyKey: string): Promise<Payment | undefined> {
  return sql.one<Payment>(FIND_BY_KEY, [userId, idempotencyKey]);
}

/** The order's live payment (at most one: payments_order_live_unique), with its age. */
export async function findLivePayment(sql: Sql, orderId: string): Promise<LivePayment | undefined> {
  return sql.one<LivePayment>(FIND_LIVE, [orderId]);
}

const INSERT_PENDING = query(
  'payments.insert-pending',
  `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint, created_at, updated_at)
   values ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $9)
   on conflict do nothing
   returning ${COLUMNS}`,
);

/**
 * The new pending payment, or undefined when its key is taken or its order already has a live payment.
 * Its amount is the order's total as it is: halalas are the minor units of every currency the service
 * handles (2 decimals each; the app writes only SAR orders).
 */
export async function insertPendingPayment(
  sql: Sql,
  p: {
    order: OrderToPay;
    userId: string;
    method: PaymentMethod;
    provider: PaymentProviderName;
    idempotencyKey: string;
    requestFingerprint: string;
    now: Date;
  },
): Promise<Payment | undefined> {
  return sql.one<Payment>(INSERT_PENDING, [
    p.order.id,
    p.userId,
    p.method,
    p.provider,
    p.order.totalHalalas,
    p.order.currency,
    p.idempotencyKey,
    p.requestFingerprint,
    p.now,
  ]);
}

const ORDER_STATUS = {
  read: query('payments.order-status', 'select status from orders where id = $1'),
  share: query('payments.order-status-share', 'select status from orders where id = $1 for share'),
  update: query('payments.order-status-update', 'select status from orders where id = $1 for update'),
};

/** The order's status; `lock` takes the order row (share: no completion meanwhile; update: one completion at a time). */
export async function findOrderStatus(
  sql: Sql,
  orderId: string,
  lock: keyof typeof ORDER_STATUS = 'read',
): Promise<OrderStatus | undefined> {
  return (await sql.one<{ status: OrderStatus }>(ORDER_STATUS[lock], [orderId]))?.status;
}

type Gateway = Pick<ProviderResult, 'gatewayTransactionId' | 'clientSecret' | 'redirectUrl'>;

const SET_GATEWAY = `gateway_transaction_id = coalesce($2, gateway_transaction_id), client_secret = coalesce($3, client_secret),
                     redirect_url = coalesce($4, redirect_url), updated_at = $5`;
const RECORD_GATEWAY = query(
  'payments.record-gateway',
  `update payments set ${SET_GATEWAY} where id = $1 and status = 'pending' returning id`,
);
const MARK_PROCESSING = query(
  'payments.mark-processing',
  `update payments set status = 'processing', ${SET_GATEWAY} where id = $1 and status = 'pending' returning id`,
);
const gatewayValues = (id: string, g: Gateway, now: Date) => [
  id,
  g.gatewayTransactionId,
  g.clientSecret ?? null,
  g.redirectUrl ?? null,
  now,
];

/** Keeps what the provider answered on a payment still `pending`; false when it is no longer pending. */
export async function recordGateway(sql: Sql, id: string, gateway: Gateway, now: Date): Promise<boolean> {
  return (await sql.exec(RECORD_GATEWAY, gatewayValues(id, gateway, now))) > 0;
}

/** The provider answered `processing`: the pending payment waits for settlement; false when it is no longer pending. */
export async function markProcessing(sql: Sql, id: string, gateway: Gateway, now: Date): Promise<boolean> {
  return (await sql.exec(MARK_PROCESSING, gatewayValues(id, gateway, now))) > 0;
}

// --- Settlement -------------------------------------------------------------------------------

/** A payments row as the webhook route and the settlement activities read it. */
export interface SettlementPayment {
  id: string;
  orderId: string;
  userId: string;
  status: PaymentStatus;
  /** Integer minor units of `currency` (bigint, as text: `4900`). */
  amountMinor: string;
  /** ISO 4217, upper-case, as stored. */
  currency: string;
  gatewayTransactionId: string | null;
}

const SETTLEMENT_COLUMNS = `id, order_id as "orderId", user_id as "userId", status, amount_minor as "amountMinor", currency, gateway_transaction_id as "gatewayTransactionId"`;

export async function findSettlementPayment(sql: Sql, id: string): Promise<SettlementPayment | undefined> {
  return sql.one<SettlementPayment>(query('payments.find-for-settlement', `select ${SETTLEMENT_COLUMNS} from payments where id = $1`), [
    id,
  ]);
}

export async function findPaymentStatus(sql: Sql, id: string): Promise<PaymentStatus | undefined> {
  return (await sql.one<{ status: PaymentStatus }>(query('payments.status', 'select status from payments where id = $1'), [id]))?.status;
}

/**
 * The open intents (pending or processing, with a processor intent) of an activation that ended (its
 * order cancelled, or failed), oldest first; none for a live activation.
 */
export async function openIntentsOfEndedActivation(
  sql: Sql,
  activationId: string,
): Promise<(SettlementPayment & { provider: PaymentProviderName })[]> {
  return sql.rows(
    query(
      'payments.open-intents-of-ended-activation',
      `select p.id, p.order_id as "orderId", p.user_id as "userId", p.status, p.amount_minor as "amountMinor", p.currency,
              p.gateway_transaction_id as "gatewayTransactionId", p.provider
         from payments p join activations a on a.order_id = p.order_id
        where a.id = $1 and a.status in ('failed', 'cancelled')
          and p.status in ('pending', 'processing') and p.gateway_transaction_id is not null
        order by p.created_at`,
    ),
    [activationId],
  );
}

const MARK_COMPLETED = query(
  'payments.mark-completed',
  `update payments set status = 'completed', paid_at = $2, receipt_number = coalesce(receipt_number, $3), failure_reason = null, updated_at = $2
    where id = $1 and status in ('pending', 'processing', 'failed') returning order_id as "orderId"`,
);

/** Completes a payment that is not completed or refunded yet: its order, or undefined when nothing changed. */
export async function markCompleted(sql: Sql, id: string, now: Date, receiptNumber: string): Promise<string | undefined> {
  return (await sql.one<{ orderId: string }>(MARK_COMPLETED, [id, now, receiptNumber]))?.orderId;
}

export async function findOrderOfPayment(sql: Sql, paymentId: string): Promise<string | undefined> {
  return (
    await sql.one<{ orderId: string }>(query('payments.order-of', 'select order_id as "orderId" from payments where id = $1'), [paymentId])
  )?.orderId;
}

export async function markOrderPaid(sql: Sql, orderId: string, now: Date): Promise<void> {
  await sql.exec(
    query('payments.mark-order-paid', `update orders set status = 'paid', updated_at = $2 where id = $1 and status = 'pending_payment'`),
    [orderId, now],
  );
}

/** The order's activation (the first, should there be several). */
export async function findActivationOfOrder(sql: Sql, orderId: string): Promise<string | null> {
  const row = await sql.one<{ id: string }>(
    query('payments.activation-of-order', 'select id from activations where order_id = $1 order by created_at limit 1'),
    [orderId],
  );
  return row?.id ?? null;
}

/**
 * Locks the payment's order (so two payments of one order settle one after the other) and
 * names another payment that already completed that order, if any: this payment is then a
 * second charge for it (two intents paid, or a failed intent retried after another paid).
 * Null when the payment does not exist.
 */
export async function lockOrderForSettlement(
  sql: Sql,
  paymentId: string,
): Promise<{ orderId: string; paidByPaymentId: string | null } | null> {
  const order = await sql.one<{ id: string }>(
    query(
      'payments.lock-order-for-settlement',
      'select o.id from orders o join payments p on p.order_id = o.id where p.id = $1 for update of o',
    ),
    [paymentId],
  );
  if (!order) return null;
  // Paid before this one: a retried settlement of the first payment must not see the second as its predecessor.
  const other = await sql.one<{ id: string }>(
    query(
      'payments.paid-before',
      `select other.id from payments other join payments me on me.order_id = other.order_id and me.id <> other.id
        where me.id = $1 and other.status = 'completed' and (me.status <> 'completed' or other.paid_at < me.paid_at)
        order by other.paid_at limit 1`,
    ),
    [paymentId],
  );
  return { orderId: order.id, paidByPaymentId: other?.id ?? null };
}

const FAIL = {
  open: query(
    'payments.fail-open',
    `update payments set status = 'failed', failure_reason = $2, updated_at = $3 where id = $1 and status in ('pending', 'processing') returning id`,
  ),
  processing: query(
    'payments.fail-processing',
    `update payments set status = 'failed', failure_reason = $2, updated_at = $3 where id = $1 and status = 'processing' returning id`,
  ),
};

/**
 * Fails a payment that is still open, with a reason. A completed payment is
 * never downgraded; returns whether anything changed.
 */
export async function failPayment(
  sql: Sql,
  paymentId: string,
  reason: string,
  now: Date,
  opts: { onlyIfProcessing?: boolean } = {},
): Promise<boolean> {
  return (await sql.exec(opts.onlyIfProcessing ? FAIL.processing : FAIL.open, [paymentId, reason, now])) > 0;
}

// --- Payment events (webhook_events, provider card_processor) ----------------------------------

const INSERT_EVENT = query(
  'payments.insert-event',
  `insert into webhook_events (provider, event_id, type, payment_id, outcome, detail, created_at)
   values ('card_processor', $1, $2, $3, $4, $5::jsonb, $6)
   on conflict (provider, event_id) do nothing returning id`,
);

/** Writes a payment event once per event id (a mismatch, a settlement receipt, a duplicate charge); true when this call wrote it. */
export async function insertPaymentEvent(
  sql: Sql,
  e: { eventId: string; type: string; paymentId: string; outcome: string; detail: Record<string, unknown>; now: Date },
): Promise<boolean> {
  return (await sql.exec(INSERT_EVENT, [e.eventId, e.type, e.paymentId, e.outcome, JSON.stringify(e.detail), e.now])) > 0;
}

/** The run named by a `settlement:<paymentId>` receipt: the first run that settled the payment. */
export async function findSettlementRun(sql: Sql, receiptId: string): Promise<string | undefined> {
  const row = await sql.one<{ runId: string }>(
    query(
      'payments.settlement-run',
      `select detail->>'runId' as "runId" from webhook_events where provider = 'card_processor' and event_id = $1`,
    ),
    [receiptId],
  );
  return row?.runId;
}

// --- The development mock wallet page ------------------------------------------------------------

/** The status of a mock mobile-wallet payment, or undefined for any other. */
export async function findMockWalletPaymentStatus(sql: Sql, paymentId: string): Promise<PaymentStatus | undefined> {
  const row = await sql.one<{ status: PaymentStatus }>(
    query('payments.mock-wallet-status', `select status from payments where id = $1 and provider = 'mock' and method = 'mobile_wallet'`),
    [paymentId],
  );
  return row?.status;
}
