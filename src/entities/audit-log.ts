import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

/**
 * Who did what, written inside the transaction of the change it records (src/audit/writer.ts).
 * `details` holds before/after values and counts, never tokens, raw links or contact data.
 * `company_id` and `entity_id` carry no foreign key: the trail outlives what it describes.
 * The actor is a foreign key, set to null if that user row is ever hard-deleted.
 */
export const AuditLog = defineEntity({
  name: 'AuditLog',
  tableName: 'audit_logs',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    /** `org.settings_updated`, `company.status_changed`, `company.roster_export`, … */
    action: p.text(),
    /** Null for system actions. */
    actorUser: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').index(),
    companyId: p.uuid().nullable(),
    entityType: p.text(),
    entityId: p.text().nullable(),
    details: p.json<Record<string, unknown>>(),
    ip: p.text().nullable(),
    userAgent: p.text().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [
    // A company's trail, newest first.
    {
      name: 'audit_logs_company_trail_index',
      expression:
        'create index "audit_logs_company_trail_index" on "audit_logs" ("company_id", "created_at" desc, "id" desc) where "company_id" is not null',
    },
    // One entity's trail (a quote chain, a contract, the organization settings), newest first.
    {
      name: 'audit_logs_entity_trail_index',
      expression: 'create index "audit_logs_entity_trail_index" on "audit_logs" ("entity_type", "entity_id", "created_at" desc, "id" desc)',
    },
  ],
});
export type AuditLogRow = InstanceType<typeof AuditLog.class>;
