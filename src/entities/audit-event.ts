import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

/**
 * Who did what, written inside the transaction of the change it records (src/audit/writer.ts), and
 * read by super_admin through GET /admin/audit-events (src/audit/routes.ts).
 * `details` holds before/after values and counts, never tokens, raw links or contact data.
 * `company_id` and `entity_id` carry no foreign key: the trail outlives what it describes.
 * The actor is a foreign key, set to null if that user row is ever hard-deleted.
 */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
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
    // The whole trail, newest first (the admin list without filters).
    {
      name: 'audit_events_created_index',
      expression: 'create index "audit_events_created_index" on "audit_events" ("created_at" desc, "id" desc)',
    },
    // One action's rows, newest first (`?action=`).
    {
      name: 'audit_events_action_trail_index',
      expression: 'create index "audit_events_action_trail_index" on "audit_events" ("action", "created_at" desc, "id" desc)',
    },
    // A company's trail, newest first.
    {
      name: 'audit_events_company_trail_index',
      expression:
        'create index "audit_events_company_trail_index" on "audit_events" ("company_id", "created_at" desc, "id" desc) where "company_id" is not null',
    },
    // One entity's trail (a quote chain, a contract, the organization settings), newest first.
    {
      name: 'audit_events_entity_trail_index',
      expression:
        'create index "audit_events_entity_trail_index" on "audit_events" ("entity_type", "entity_id", "created_at" desc, "id" desc)',
    },
  ],
});
export type AuditEventRow = InstanceType<typeof AuditEvent.class>;
