import type { MikroORM } from '@mikro-orm/postgresql';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';

export interface AuditEventFilter extends OffsetPaging {
  action?: string;
  companyId?: string;
  entityType?: string;
  entityId?: string;
}

interface Row {
  id: string;
  action: string;
  actor_user_id: string | null;
  company_id: string | null;
  entity_type: string;
  entity_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  user_agent: string | null;
  created_at: Date | string;
}

const view = (row: Row) => ({
  id: row.id,
  action: row.action,
  actorUserId: row.actor_user_id,
  companyId: row.company_id,
  entityType: row.entity_type,
  entityId: row.entity_id,
  details: row.details ?? {},
  ip: row.ip,
  userAgent: row.user_agent,
  createdAt: new Date(row.created_at).toISOString(),
});

/**
 * The audit trail, newest first, offset-paged. Each filter is an equality on an indexed column
 * (audit_events_*_index), so every page reads one index range. Rows hold no secrets: the writer
 * refuses them (src/audit/writer.ts).
 */
export function createAuditReads(orm: MikroORM) {
  async function list(filter: AuditEventFilter) {
    const where: string[] = [];
    const params: unknown[] = [];
    const equal = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    equal('action', filter.action);
    equal('company_id', filter.companyId);
    equal('entity_type', filter.entityType);
    equal('entity_id', filter.entityId);
    const clause = where.length ? `where ${where.join(' and ')}` : '';
    const em = orm.em.fork();
    const rows = await em.execute<Row[]>(
      `select id, action, actor_user_id, company_id, entity_type, entity_id, details, ip, user_agent, created_at
         from audit_events ${clause} order by created_at desc, id desc limit ? offset ?`,
      [...params, filter.limit, offsetOf(filter)],
    );
    const [count] = await em.execute<{ total: string | number }[]>(`select count(*) as total from audit_events ${clause}`, params);
    return offsetPageBody('events', rows.map(view), Number(count.total), filter);
  }
  return { list };
}

export type AuditReads = ReturnType<typeof createAuditReads>;
