import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

/**
 * Money support must act on (src/reconciliation/): a refund to make (PAYMENT_REFUND_REQUIRED), a
 * second charge for an order already paid (PAYMENT_DUPLICATE_CHARGE), a processor answer that does
 * not match the payment (PAYMENT_PROVIDER_AMOUNT_MISMATCH). Written in the transaction of the change
 * that causes it, one per fact (`dedupe_key`); open until support resolves it with a note. Ids carry
 * no foreign keys: the record outlives what it describes. Never holds payloads or contact data.
 */
export const ReconciliationRecord = defineEntity({
  name: 'ReconciliationRecord',
  tableName: 'reconciliation_records',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    /** One of reconciliationCodes (src/http/error-codes.ts). */
    code: p.string().length(64),
    /** `refund:<paymentId>`, `duplicate:<paymentId>`, `mismatch:<eventId>`. */
    dedupeKey: p.string().length(300).unique(),
    paymentId: p.uuid().nullable().index(),
    orderId: p.uuid().nullable(),
    activationId: p.uuid().nullable(),
    reason: p.text().nullable(),
    detail: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    resolvedAt: p.datetime().nullable(),
    resolvedBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null'),
    resolutionNote: p.text().nullable(),
  },
  indexes: [
    // Support's list: open records, newest first.
    {
      name: 'reconciliation_records_open_index',
      expression:
        'create index "reconciliation_records_open_index" on "reconciliation_records" ("created_at" desc, "id" desc) where "resolved_at" is null',
    },
  ],
});
export type ReconciliationRecordRow = InstanceType<typeof ReconciliationRecord.class>;
