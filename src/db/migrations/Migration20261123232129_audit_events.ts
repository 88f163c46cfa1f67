import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail is `audit_events` (issue 12), readable by super_admin through GET /admin/audit-events.
 * A rename, not a new table: the rows written so far stay. Two indexes serve the list: the whole
 * trail newest first, and one action's rows newest first.
 */
export class Migration20261123232129_audit_events extends Migration {
  override name = 'Migration20261123232129_audit_events';

  override up(): void | Promise<void> {
    this.addSql(`alter table "audit_logs" rename to "audit_events";`);
    this.addSql(`alter table "audit_events" rename constraint "audit_logs_pkey" to "audit_events_pkey";`);
    this.addSql(`alter table "audit_events" rename constraint "audit_logs_actor_user_id_foreign" to "audit_events_actor_user_id_foreign";`);
    this.addSql(`alter index "audit_logs_actor_user_id_index" rename to "audit_events_actor_user_id_index";`);
    this.addSql(`alter index "audit_logs_company_trail_index" rename to "audit_events_company_trail_index";`);
    this.addSql(`alter index "audit_logs_entity_trail_index" rename to "audit_events_entity_trail_index";`);
    this.addSql(`create index "audit_events_created_index" on "audit_events" ("created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_events_action_trail_index" on "audit_events" ("action", "created_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "audit_events_action_trail_index";`);
    this.addSql(`drop index if exists "audit_events_created_index";`);
    this.addSql(`alter index "audit_events_entity_trail_index" rename to "audit_logs_entity_trail_index";`);
    this.addSql(`alter index "audit_events_company_trail_index" rename to "audit_logs_company_trail_index";`);
    this.addSql(`alter index "audit_events_actor_user_id_index" rename to "audit_logs_actor_user_id_index";`);
    this.addSql(`alter table "audit_events" rename constraint "audit_events_actor_user_id_foreign" to "audit_logs_actor_user_id_foreign";`);
    this.addSql(`alter table "audit_events" rename constraint "audit_events_pkey" to "audit_logs_pkey";`);
    this.addSql(`alter table "audit_events" rename to "audit_logs";`);
  }
}
