import { query, type Sql } from '../db/sql';

/** The SQL of the audit trail (audit_events); the rules on what may be written are writer.ts's. */

export interface AuditRow {
  id: string;
  action: string;
  actorUserId: string | null;
  companyId: string | null;
  entityType: string;
  entityId: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
}

export async function insertAuditEvent(sql: Sql, e: AuditRow): Promise<void> {
  await sql.exec(
    query(
      'audit.insert',
      `insert into audit_events (id, action, actor_user_id, company_id, entity_type, entity_id, details, ip, user_agent, created_at)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)`,
    ),
    [e.id, e.action, e.actorUserId, e.companyId, e.entityType, e.entityId, JSON.stringify(e.details), e.ip, e.userAgent, e.createdAt],
  );
}
