import { reconciliationCodes } from '../http/error-codes';
import { PathId, text } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';

export const RECORD_STATUSES = ['open', 'resolved', 'all'] as const;

export const ReconciliationListQuery = z.strictObject({
  ...offsetParams,
  code: z.enum(reconciliationCodes).optional().openapi({ description: 'Only records of this code' }),
  status: z.enum(RECORD_STATUSES).default('open').openapi({ description: '`open` (default): not resolved yet; `resolved`; `all`' }),
});

export const ReconciliationRecordParams = z.object({ id: PathId });

export const ResolveReconciliationBody = z
  .strictObject({
    note: text(1, 2000, 'Note').openapi({
      description: 'What support did (e.g. the refund id at the processor); kept on the record and audited',
    }),
  })
  .openapi('ResolveReconciliationRequest');

export const ReconciliationRecord = z
  .object({
    id: z.uuid(),
    code: z.enum(reconciliationCodes),
    paymentId: z.uuid().nullable(),
    orderId: z.uuid().nullable(),
    activationId: z.uuid().nullable(),
    reason: z.string().nullable().openapi({
      description:
        'Why: SIM_LIMIT_EXCEEDED, IDENTITY_NOT_COMPLETED_IN_TIME, PAID_AFTER_ORDER_CANCELLED, an operator refusal, the failed rules',
    }),
    detail: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'What support needs to act: amount, currency, provider, the processor intent id, mismatches' }),
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
    resolvedBy: z.uuid().nullable().openapi({ description: 'The super_admin who resolved it' }),
    note: z.string().nullable(),
  })
  .openapi('ReconciliationRecord');

export const ReconciliationRecordList = offsetPage('ReconciliationRecordList', 'records', ReconciliationRecord);
export const ReconciliationRecordResponse = z.object({ data: ReconciliationRecord }).openapi('ReconciliationRecordResponse');
