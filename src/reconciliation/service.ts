import { writeAudit } from '../audit/writer';
import type { Db } from '../db/sql';
import { AppError } from '../http/errors';
import { offsetPageBody } from '../http/pagination';
import { listRecords, type ListFilter } from './reads';
import { lockRecord, resolveRecord, type RecordRow } from './repository';

export interface ReconciliationServiceDeps {
  db: Db;
  clock: () => Date;
}

/** Who acts, from the verified session, and where from (for the audit row). */
export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/** A record as the API answers it: the stored row, timestamps in ISO 8601. */
export type ReconciliationRecordView = Omit<RecordRow, 'detail' | 'createdAt' | 'resolvedAt'> & {
  detail: Record<string, unknown>;
  createdAt: string;
  resolvedAt: string | null;
};

function view(row: RecordRow): ReconciliationRecordView {
  return {
    ...row,
    detail: row.detail ?? {},
    createdAt: row.createdAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
  };
}

/**
 * Support's side of reconciliation records (src/reconciliation/records.ts writes them): list them,
 * newest first, and resolve one with a note. Resolving is one transaction with its audit row;
 * resolving a resolved record changes nothing and answers it as it was resolved (a retried request
 * gets the same answer; `resolvedBy` and `note` say who did it first).
 */
export function createReconciliationService(deps: ReconciliationServiceDeps) {
  const { db, clock } = deps;

  async function list(filter: ListFilter) {
    const { rows, total } = await listRecords(db, filter);
    return offsetPageBody('records', rows.map(view), total, filter);
  }

  async function resolve(actor: Actor, id: string, note: string): Promise<ReconciliationRecordView> {
    return db.transaction(async (tx) => {
      const row = await lockRecord(tx, id);
      if (!row) throw new AppError('NOT_FOUND');
      if (row.resolvedAt !== null) return view(row);
      const now = clock();
      const updated = await resolveRecord(tx, row.id, { by: actor.userId, note, now });
      await writeAudit(tx, {
        action: 'reconciliation.resolved',
        actorUserId: actor.userId,
        entityType: 'reconciliation_record',
        entityId: row.id,
        details: { code: row.code, paymentId: row.paymentId, note },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return view(updated);
    });
  }

  return { list, resolve };
}

export type ReconciliationService = ReturnType<typeof createReconciliationService>;
