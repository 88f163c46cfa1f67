import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { Sql } from '../db/sql';
import type { AuditRow } from './repository';

export interface AuditEventFilter extends OffsetPaging {
  action?: string;
  companyId?: string;
  entityType?: string;
  entityId?: string;
}

const view = (row: AuditRow) => ({ ...row, createdAt: row.createdAt.toISOString() });

/**
 * The audit trail, newest first, offset-paged. Each filter is an equality on an indexed column
 * (audit_events_*_index), so every page reads one index range. Rows hold no secrets: the writer
 * refuses them (src/audit/writer.ts).
 */
export function createAuditReads(db: Sql) {
  async function list(filter: AuditEventFilter) {
    const where: string[] = [];
    const params: unknown[] = [];
    const equal = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    equal('action', filter.action);
    equal('company_id', filter.companyId);
    equal('entity_type', filter.entityType);
    equal('entity_id', filter.entityId);
    const clause = where.length ? `where ${where.join(' and ')}` : '';
    const n = params.length;
    const rows = await db.rows<AuditRow>(
      `select id, action, actor_user_id as "actorUserId", company_id as "companyId", entity_type as "entityType",
              entity_id as "entityId", details, ip, user_agent as "userAgent", created_at as "createdAt"
         from audit_events ${clause} order by created_at desc, id desc limit $${n + 1} offset $${n + 2}`,
      [...params, filter.limit, offsetOf(filter)],
    );
    const count = await db.one<{ total: string }>(`select count(*) as total from audit_events ${clause}`, params);
    return offsetPageBody('events', rows.map(view), Number(count!.total), filter);
  }
  return { list };
}

export type AuditReads = ReturnType<typeof createAuditReads>;
