import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeAudit } from '../audit/writer';
import type { ReconciliationCode } from '../http/error-codes';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import { sqlOf } from '../db/transition';

export interface ReconciliationServiceDeps {
  orm: MikroORM;
  clock: () => Date;
}

/** Who acts, from the verified session, and where from (for the audit row). */
export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

export interface ReconciliationRecordView {
  id: string;
  code: ReconciliationCode;
  paymentId: string | null;
  orderId: string | null;
  activationId: string | null;
  reason: string | null;
  detail: Record<string, unknown>;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  note: string | null;
}

interface Row {
  id: string;
  code: ReconciliationCode;
  payment_id: string | null;
  order_id: string | null;
  activation_id: string | null;
  reason: string | null;
  detail: Record<string, unknown> | null;
  created_at: Date | string;
  resolved_at: Date | string | null;
  resolved_by_id: string | null;
  resolution_note: string | null;
}

const COLUMNS = 'id, code, payment_id, order_id, activation_id, reason, detail, created_at, resolved_at, resolved_by_id, resolution_note';
const iso = (value: Date | string) => new Date(value).toISOString();

function view(row: Row): ReconciliationRecordView {
  return {
    id: row.id,
    code: row.code,
    paymentId: row.payment_id,
    orderId: row.order_id,
    activationId: row.activation_id,
    reason: row.reason,
    detail: row.detail ?? {},
    createdAt: iso(row.created_at),
    resolvedAt: row.resolved_at === null ? null : iso(row.resolved_at),
    resolvedBy: row.resolved_by_id,
    note: row.resolution_note,
  };
}

export interface ListFilter extends OffsetPaging {
  code?: ReconciliationCode;
  status: 'open' | 'resolved' | 'all';
}

/**
 * Support's side of reconciliation records (src/reconciliation/records.ts writes them): list them,
 * newest first, and resolve one with a note. Resolving is one transaction with its audit row;
 * resolving a resolved record changes nothing and answers it as it was resolved (a retried request
 * gets the same answer; `resolvedBy` and `note` say who did it first).
 */
export function createReconciliationService(deps: ReconciliationServiceDeps) {
  const { orm, clock } = deps;

  async function list(filter: ListFilter) {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status === 'open') where.push('resolved_at is null');
    if (filter.status === 'resolved') where.push('resolved_at is not null');
    if (filter.code) {
      where.push('code = ?');
      params.push(filter.code);
    }
    const clause = where.length ? `where ${where.join(' and ')}` : '';
    const em = orm.em.fork();
    const rows = await em.execute<Row[]>(
      `select ${COLUMNS} from reconciliation_records ${clause} order by created_at desc, id desc limit ? offset ?`,
      [...params, filter.limit, offsetOf(filter)],
    );
    const [count] = await em.execute<{ total: string | number }[]>(
      `select count(*) as total from reconciliation_records ${clause}`,
      params,
    );
    return offsetPageBody('records', rows.map(view), Number(count.total), filter);
  }

  async function lock(em: EntityManager, id: string): Promise<Row> {
    const [row] = isUuid(id) ? await em.execute<Row[]>(`select ${COLUMNS} from reconciliation_records where id = ? for update`, [id]) : [];
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  async function resolve(actor: Actor, id: string, note: string): Promise<ReconciliationRecordView> {
    return orm.em.fork().transactional(async (em) => {
      const row = await lock(em, id);
      if (row.resolved_at !== null) return view(row);
      const now = clock();
      const [updated] = await em.execute<Row[]>(
        `update reconciliation_records set resolved_at = ?, resolved_by_id = ?, resolution_note = ? where id = ? returning ${COLUMNS}`,
        [now, actor.userId, note, row.id],
      );
      await writeAudit(sqlOf(em), {
        action: 'reconciliation.resolved',
        actorUserId: actor.userId,
        entityType: 'reconciliation_record',
        entityId: row.id,
        details: { code: row.code, paymentId: row.payment_id, note },
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
