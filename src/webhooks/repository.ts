// The SQL of the webhooks: the inbox (the card processor's route and the mock wallet page append,
// the relay claims and marks) and the eSIM provider's de-duplication receipts (webhook_events).
import { query, type Sql } from '../db/sql';
import type { PaymentProviderName, PaymentStatus } from '../entities/payment';
import type { SettlementPayment } from '../payments';
import type { QueueTable } from '../relay/statements';
import type { ProcessorEvent } from '../payments/runs';

// --- The inbox: appending ------------------------------------------------------------------------

export interface InboxEntry {
  /** Who sent it: the card processor, or the development mock wallet page. */
  provider: PaymentProviderName;
  paymentId: string;
  event: ProcessorEvent;
  receivedAt: Date;
}

// Due at once by the database's clock (the relay compares with now(), wherever it runs).
const APPEND = query(
  'webhooks.inbox-append',
  `insert into webhook_inbox (provider, event_id, payment_id, type, failure_message, received_at, next_attempt_at)
   values ($1, $2, $3, $4, $5, $6, now()) on conflict (provider, event_id) do nothing returning id`,
);

/**
 * Keeps one event: ONE statement, de-duplicated by the provider's event id (a redelivery,
 * or two deliveries racing, leave one row). Returns false for a duplicate. The row is due at
 * once; its insert trigger wakes the relay.
 */
export async function appendToInbox(sql: Sql, entry: InboxEntry): Promise<boolean> {
  const { event } = entry;
  const inserted = await sql.exec(APPEND, [
    entry.provider,
    event.eventId,
    entry.paymentId,
    event.type,
    event.failureMessage ?? null,
    entry.receivedAt,
  ]);
  return inserted > 0;
}

// --- The card processor's route: find the payment and keep the event ----------------------------

/**
 * The route's one statement, for a batch of events (group commit, ./group-commit.ts: the events
 * that arrived while the previous statement was in flight go together, one round trip and one
 * commit for all). Per event (`ord`, its place in the batch): finds the payment (by
 * metadata.payment_id, else the newest by intent id) and keeps the event in the inbox when it is
 * `eligible`: the payment can still take it and, for a success, the stored payment is exactly
 * what the event says (the gate: text and integer equality; a null gate keeps nothing). The gate
 * is never weaker than the four rules, which the route then checks on the very row returned, so a
 * mismatch is never kept. Rows are inserted in batch order, so the inbox keeps arrival order per
 * payment; a redelivery (also within one batch) leaves one row. An event naming no payment of
 * ours returns no row.
 */
const FIND_AND_KEEP = query(
  'webhooks.card-find-and-keep',
  `with e as (
  select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[],
                       $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[]) with ordinality
    as e(payment_id, intent_id, event_id, type, failure_message, received_at, deliverable,
         g_payment, g_order, g_user, g_currency, g_amount, g_received, ord)
), p as (
  select e.ord, e.event_id, e.type, e.failure_message, e.received_at,
         f.id, f.order_id, f.user_id, f.status, f.amount_minor, f.currency, f.gateway_transaction_id,
         f.status = any(string_to_array(e.deliverable, ',')) and (e.type <> 'payment_intent.succeeded' or coalesce(
           f.id::text = e.g_payment and f.order_id::text = e.g_order and f.user_id::text = e.g_user and f.currency = e.g_currency
           and f.amount_minor = e.g_amount::bigint and f.amount_minor = e.g_received::bigint, false)) as eligible
    from e cross join lateral (
      select * from (
        select 1 as rank, * from payments where id = e.payment_id and provider = 'card_processor'
        union all
        (select 2 as rank, * from payments where gateway_transaction_id = e.intent_id and provider = 'card_processor' order by created_at desc limit 1)
      ) found order by rank limit 1
    ) f
), kept as (
  insert into webhook_inbox (provider, event_id, payment_id, type, failure_message, received_at, next_attempt_at)
  select 'card_processor', p.event_id, p.id, p.type, p.failure_message, p.received_at, now() from p where p.eligible order by p.ord
  on conflict (provider, event_id) do nothing
)
select ord, id, order_id as "orderId", user_id as "userId", status, amount_minor as "amountMinor", currency,
       gateway_transaction_id as "gatewayTransactionId", eligible
  from p`,
);

/** One event of a find-and-keep batch. */
export interface KeepRequest {
  /** metadata.payment_id when it is a UUID. */
  paymentId: string | null;
  intentId: string;
  event: ProcessorEvent;
  receivedAt: Date;
  /** The payment statuses the event can still change (DELIVERABLE). */
  deliverable: readonly PaymentStatus[];
  /** What a success must match (payment, order, user, currency, amount, amount received); null keeps no success. */
  gate: string[] | null;
}

/** The payment an event names, and whether the event was kept for it. */
export interface FoundPayment extends SettlementPayment {
  eligible: boolean;
}

/** FIND_AND_KEEP for a batch: per event, the payment it names (null: none of ours). */
export async function findAndKeep(sql: Sql, batch: KeepRequest[]): Promise<(FoundPayment | null)[]> {
  const column = <T>(pick: (k: KeepRequest) => T) => batch.map(pick);
  const gate = (i: number) => column((k) => k.gate?.[i] ?? null);
  const rows = await sql.rows<FoundPayment & { ord: string }>(FIND_AND_KEEP, [
    column((k) => k.paymentId),
    column((k) => k.intentId),
    column((k) => k.event.eventId),
    column((k) => k.event.type),
    column((k) => k.event.failureMessage ?? null),
    column((k) => k.receivedAt),
    column((k) => k.deliverable.join(',')),
    ...[0, 1, 2, 3, 4, 5].map(gate),
  ]);
  const found: (FoundPayment | null)[] = batch.map(() => null);
  for (const { ord, ...row } of rows) found[Number(ord) - 1] = row;
  return found;
}

// --- The inbox: the relay's side (its claiming transaction) --------------------------------------

export interface ClaimedInboxRow {
  id: string;
  eventId: string;
  paymentId: string;
  type: ProcessorEvent['type'];
  failureMessage: string | null;
  paymentStatus: PaymentStatus;
}

/** The relay loop's queue on webhook_inbox (src/relay/statements.ts). */
export const INBOX_QUEUE: QueueTable = {
  name: 'webhooks.inbox',
  table: 'webhook_inbox',
  alias: 'i',
  columns: `i.id, i.event_id as "eventId", i.payment_id as "paymentId", i.type, i.failure_message as "failureMessage",
       p.status as "paymentStatus"`,
  join: 'join payments p on p.id = i.payment_id',
  pending: `i.status = 'pending'`,
  // A row is claimable when it is due and no earlier row of its payment is still pending: one row per
  // payment per claim, in arrival order. A head locked by another relay is skipped, and so is the rest
  // of its payment (the earlier pending row hides it), so two relays never reorder a payment.
  ready: `not exists (select 1 from webhook_inbox e where e.payment_id = i.payment_id and e.status = 'pending' and e.id < i.id)`,
  order: 'i.id',
};

const MARK = {
  delivered: query(
    'webhooks.inbox-delivered',
    `update webhook_inbox set status = 'delivered', attempts = attempts + 1, last_error = null, handled_at = now()
      where id = any($1::bigint[])`,
  ),
  skipped: query('webhooks.inbox-skipped', `update webhook_inbox set status = 'skipped', handled_at = now() where id = any($1::bigint[])`),
};

/** delivered: signalled; skipped: its payment settled meanwhile, marked without a signal. */
export async function markInbox(sql: Sql, outcome: keyof typeof MARK, rows: ClaimedInboxRow[]): Promise<void> {
  await sql.exec(MARK[outcome], [rows.map((r) => r.id)]);
}

// --- eSIM provider receipts (webhook_events) -----------------------------------------------------

const CLAIM_ESIM_RECEIPT = query(
  'webhooks.esim-receipt-claim',
  `insert into webhook_events (provider, event_id, type, payment_id, outcome, detail, created_at)
   values ('esim_provider', $1, $2, null, 'received', $3::jsonb, $4) on conflict (provider, event_id) do nothing returning id`,
);

/** Inserts the receipt of (order, status), or nothing when it exists: its id, or undefined for a duplicate. */
export async function claimEsimReceipt(
  sql: Sql,
  receipt: { eventId: string; type: string; detail: Record<string, unknown>; now: Date },
): Promise<string | undefined> {
  const row = await sql.one<{ id: string }>(CLAIM_ESIM_RECEIPT, [
    receipt.eventId,
    receipt.type,
    JSON.stringify(receipt.detail),
    receipt.now,
  ]);
  return row?.id;
}

export async function setReceiptOutcome(sql: Sql, id: string, outcome: string): Promise<void> {
  await sql.exec(query('webhooks.receipt-outcome', 'update webhook_events set outcome = $2 where id = $1'), [id, outcome]);
}
