import { query, type Sql } from '../db/sql';
import type { ReconciliationCode } from '../http/error-codes';
import { isUuid } from '../http/fields';

/**
 * The SQL of reconciliation records: writing one (in the transaction of the change that causes it),
 * what a refund record names, and support's resolution. The list is ./reads.ts.
 */

export interface ReconciliationEntry {
  code: ReconciliationCode;
  /** What makes the record unique: `refund:<paymentId>`, `duplicate:<paymentId>`, `mismatch:<eventId>`. */
  key: string;
  paymentId?: string | null;
  orderId?: string | null;
  activationId?: string | null;
  /** A short machine reason (SIM_LIMIT_EXCEEDED, PAID_AFTER_ORDER_CANCELLED, an operator's reason). */
  reason?: string | null;
  /** What support needs to act: amounts, processor ids, which rules failed. */
  detail?: Record<string, unknown>;
  now: Date;
}

const INSERT = query(
  'reconciliation.insert',
  `insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
   values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) on conflict (dedupe_key) do nothing returning id`,
);

/** Inserts the record unless one with its key exists; true when this call wrote it. */
export async function writeReconciliationRecord(sql: Sql, entry: ReconciliationEntry): Promise<boolean> {
  const inserted = await sql.exec(INSERT, [
    entry.code,
    entry.key,
    entry.paymentId ?? null,
    entry.orderId ?? null,
    entry.activationId ?? null,
    entry.reason ?? null,
    JSON.stringify(entry.detail ?? {}),
    entry.now,
  ]);
  return inserted > 0;
}

/** A payment as its refund record names it. */
export interface RefundFacts {
  orderId: string;
  /** Integer minor units of `currency` (bigint, as text). */
  amountMinor: string;
  currency: string;
  provider: string;
  gatewayTransactionId: string | null;
  /** The order's first activation. */
  activationId: string | null;
}

/** The payment to refund, unless it is a corporate payment (provider `company`) or does not exist. */
export async function findRefundFacts(sql: Sql, paymentId: string): Promise<RefundFacts | undefined> {
  return sql.one<RefundFacts>(
    query(
      'reconciliation.refund-facts',
      `select p.order_id as "orderId", p.amount_minor as "amountMinor", p.currency, p.provider, p.gateway_transaction_id as "gatewayTransactionId",
              (select a.id from activations a where a.order_id = p.order_id order by a.created_at limit 1) as "activationId"
         from payments p where p.id = $1 and p.provider <> 'company'`,
    ),
    [paymentId],
  );
}

// --- Support's side -------------------------------------------------------------------------------

/** A record as support reads it (the API's view but for the timestamps' format). */
export interface RecordRow {
  id: string;
  code: ReconciliationCode;
  paymentId: string | null;
  orderId: string | null;
  activationId: string | null;
  reason: string | null;
  detail: Record<string, unknown> | null;
  createdAt: Date;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  note: string | null;
}

export const RECORD_COLUMNS = `id, code, payment_id as "paymentId", order_id as "orderId", activation_id as "activationId", reason, detail,
  created_at as "createdAt", resolved_at as "resolvedAt", resolved_by_id as "resolvedBy", resolution_note as "note"`;

/** Locks one record for its resolution; undefined for an unknown id or one that is not a UUID. */
export async function lockRecord(sql: Sql, id: string): Promise<RecordRow | undefined> {
  if (!isUuid(id)) return undefined;
  return sql.one<RecordRow>(query('reconciliation.lock', `select ${RECORD_COLUMNS} from reconciliation_records where id = $1 for update`), [
    id,
  ]);
}

/**
 * A payment's refund record by its key, locked; else its newest refund record (one written before the
 * key counted occurrences); undefined when the payment has none.
 */
export async function lockRefundRecord(sql: Sql, paymentId: string, key: string): Promise<RecordRow | undefined> {
  return sql.one<RecordRow>(
    query(
      'reconciliation.lock-refund',
      `select ${RECORD_COLUMNS} from reconciliation_records where payment_id = $1 and code = 'PAYMENT_REFUND_REQUIRED'
        order by dedupe_key = $2 desc, created_at desc, id desc limit 1 for update`,
    ),
    [paymentId, key],
  );
}

/** Resolves the record with a note; `by` null when the service itself closed it (a store order's run). */
export async function resolveRecord(sql: Sql, id: string, r: { by: string | null; note: string; now: Date }): Promise<RecordRow> {
  const row = await sql.one<RecordRow>(
    query(
      'reconciliation.resolve',
      `update reconciliation_records set resolved_at = $2, resolved_by_id = $3, resolution_note = $4 where id = $1 returning ${RECORD_COLUMNS}`,
    ),
    [id, r.now, r.by, r.note],
  );
  return row!;
}
