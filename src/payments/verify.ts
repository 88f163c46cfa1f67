import type { Db } from '../db/sql';
import { writeReconciliationRecord } from '../reconciliation/records';
import * as repo from './repository';

/** The stored payment, as far as settlement verification needs it (a SettlementPayment is one). */
export interface StoredPayment {
  id: string;
  orderId: string;
  userId: string;
  /** Integer minor units of `currency`, as stored (bigint, as text: `4900`). */
  amountMinor: string;
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

  // 3. `amount` and `amount_received` each equal the payment amount in integer minor units (integers on both sides).
  const expected = BigInt(payment.amountMinor);
  for (const [field, value] of [
    ['amount', intent.amountMinor],
    ['amount_received', intent.amountReceivedMinor],
  ] as const) {
    const received = exactMinor(value);
    if (received === null || received !== expected) {
      mismatches.push({ rule: 'amount', field, expected: expected.toString(), received: received?.toString() ?? String(value) });
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
export async function recordMismatch(db: Db, record: MismatchRecord): Promise<{ recorded: boolean; paymentFailed: boolean }> {
  return db.transaction(async (tx) => {
    const detail = { code: AMOUNT_MISMATCH, intentId: record.intentId, mismatches: record.mismatches };
    const recorded = await repo.insertPaymentEvent(tx, {
      eventId: record.eventId,
      type: record.eventType,
      paymentId: record.paymentId,
      outcome: 'mismatch',
      detail,
      now: record.now,
    });
    const orderId = await repo.findOrderOfPayment(tx, record.paymentId);
    await writeReconciliationRecord(tx, {
      code: AMOUNT_MISMATCH,
      key: `mismatch:${record.eventId}`,
      paymentId: record.paymentId,
      orderId,
      activationId: orderId ? await repo.findActivationOfOrder(tx, orderId) : null,
      reason: [...new Set(record.mismatches.map((m) => m.rule))].join(','),
      detail,
      now: record.now,
    });
    const paymentFailed = await repo.failPayment(tx, record.paymentId, AMOUNT_MISMATCH, record.now, { onlyIfProcessing: true });
    return { recorded, paymentFailed };
  });
}
