import type { PaymentStatus } from '../entities/payment';
import type { EntityManager } from '@mikro-orm/postgresql';
import { writeReconciliationRecord } from '../reconciliation/records';
import { sqlOf } from '../db/transition';
import { toMinorUnits } from './money';
import { failPayment } from './settle';

/** The stored payment row, as far as settlement verification needs it. */
/** A payments row as the webhook route and the settlement activities read it. */
export interface PaymentRow {
  id: string;
  order_id: string;
  user_id: string;
  status: PaymentStatus;
  amount: string;
  currency: string;
  gateway_transaction_id: string | null;
}

export interface StoredPayment {
  id: string;
  orderId: string;
  userId: string;
  /** Decimal string, as stored (`49.00`). */
  amount: string;
  /** ISO 4217, upper-case, as stored. */
  currency: string;
}

/**
 * What the processor says about an intent: from a webhook payload (`amount`
 * numbers, lower-case currency) or from a lookup (ProviderIntent). Integer
 * minor units; anything else is a mismatch, never rounded.
 */
export interface IntentFacts {
  status: string;
  amountMinor: bigint | number;
  amountReceivedMinor: bigint | number;
  currency: string;
  metadata: Record<string, string> | null | undefined;
}

export type MismatchRule = 'status' | 'currency' | 'amount' | 'metadata';

/** One failed rule: what we expected and what the processor sent (values only, never the payload). */
export interface Mismatch {
  rule: MismatchRule;
  field: string;
  expected: string | null;
  received: string | null;
}

export type Verification = { ok: true } | { ok: false; mismatches: Mismatch[] };

export const METADATA_KEYS = ['payment_id', 'order_id', 'user_id'] as const;

/** Integer minor units as bigint; null for anything that is not an exact integer. */
function exactMinor(value: bigint | number): bigint | null {
  if (typeof value === 'bigint') return value;
  return Number.isSafeInteger(value) ? BigInt(value) : null;
}

/**
 * The spec's four settlement rules for `payment_intent.succeeded`, checked
 * against the stored payment row; shared by the webhook route and the
 * settlement workflow's processor lookup. Reports every rule that fails.
 */
export function verifySucceededIntent(payment: StoredPayment, intent: IntentFacts): Verification {
  const mismatches: Mismatch[] = [];

  // 1. provider status is `succeeded`.
  if (intent.status !== 'succeeded') {
    mismatches.push({ rule: 'status', field: 'status', expected: 'succeeded', received: String(intent.status) });
  }

  // 2. provider currency, upper-cased, equals the payment currency.
  const currency = typeof intent.currency === 'string' ? intent.currency.toUpperCase() : null;
  if (currency !== payment.currency) {
    mismatches.push({ rule: 'currency', field: 'currency', expected: payment.currency, received: currency });
  }

  // 3. `amount` and `amount_received` each equal the payment amount in integer minor units (decimal-exact).
  let expected: bigint | null;
  try {
    expected = toMinorUnits(payment.amount, payment.currency);
  } catch {
    expected = null; // more decimals than the currency allows: nothing can match it
  }
  for (const [field, value] of [
    ['amount', intent.amountMinor],
    ['amount_received', intent.amountReceivedMinor],
  ] as const) {
    const received = exactMinor(value);
    if (expected === null || received === null || received !== expected) {
      mismatches.push({ rule: 'amount', field, expected: expected?.toString() ?? null, received: received?.toString() ?? String(value) });
    }
  }

  // 4. metadata payment_id, order_id and user_id are all present and match.
  const wanted: Record<(typeof METADATA_KEYS)[number], string> = {
    payment_id: payment.id,
    order_id: payment.orderId,
    user_id: payment.userId,
  };
  for (const key of METADATA_KEYS) {
    const value = intent.metadata?.[key];
    const received = typeof value === 'string' ? value : null;
    if (received !== wanted[key]) {
      mismatches.push({ rule: 'metadata', field: `metadata.${key}`, expected: wanted[key], received });
    }
  }

  return mismatches.length === 0 ? { ok: true } : { ok: false, mismatches };
}

/** The reconciliation code of every verification mismatch (a log and record code, never an HTTP error). */
export const AMOUNT_MISMATCH = 'PAYMENT_PROVIDER_AMOUNT_MISMATCH';

// --- Recording a mismatch ----------------------------------------------------------------------

export interface MismatchRecord {
  paymentId: string;
  /** The processor's event id (webhook) or `lookup:<intentId>` (settlement lookup): one record per id. */
  eventId: string;
  eventType: string;
  intentId: string;
  mismatches: Mismatch[];
  now: Date;
}

/**
 * Writes the reconciliation record and fails the payment (only while it is
 * still `processing`) in ONE transaction: either both happen or neither.
 * Idempotent on the event id, so a redelivery after a failed attempt redoes
 * it and a duplicate changes nothing. Holds the mismatch detail, never the payload.
 * The webhook_events row is the spec's record (and the delivery's receipt); the
 * reconciliation_records row is support's work item, listed until resolved.
 */
export async function recordMismatch(em: EntityManager, record: MismatchRecord): Promise<{ recorded: boolean; paymentFailed: boolean }> {
  return em.transactional(async (tx) => {
    const detail = { code: AMOUNT_MISMATCH, intentId: record.intentId, mismatches: record.mismatches };
    const inserted = await tx.execute<{ id: string }[]>(
      `insert into webhook_events (provider, event_id, type, payment_id, outcome, detail, created_at)
       values ('card_processor', ?, ?, ?, 'mismatch', ?::jsonb, ?)
       on conflict (provider, event_id) do nothing returning id`,
      [record.eventId, record.eventType, record.paymentId, JSON.stringify(detail), record.now],
    );
    const [payment] = await tx.execute<{ order_id: string; activation_id: string | null }[]>(
      `select p.order_id, (select a.id from activations a where a.order_id = p.order_id order by a.created_at limit 1) as activation_id
         from payments p where p.id = ?`,
      [record.paymentId],
    );
    await writeReconciliationRecord(sqlOf(tx), {
      code: AMOUNT_MISMATCH,
      key: `mismatch:${record.eventId}`,
      paymentId: record.paymentId,
      orderId: payment?.order_id,
      activationId: payment?.activation_id,
      reason: [...new Set(record.mismatches.map((m) => m.rule))].join(','),
      detail,
      now: record.now,
    });
    const paymentFailed = await failPayment(tx, record.paymentId, AMOUNT_MISMATCH, record.now, { onlyIfProcessing: true });
    return { recorded: inserted.length > 0, paymentFailed };
  });
}
