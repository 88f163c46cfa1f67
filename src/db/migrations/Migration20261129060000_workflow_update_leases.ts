import { Migration } from '@mikro-orm/migrations';

/**
 * Leases on an action's derived update id (src/workflow-updates/repository.ts): one live request per
 * derived id, and the update id a retry of a request whose outcome was unknown joins.
 */
export class Migration20261129060000_workflow_update_leases extends Migration {
  override name = 'Migration20261129060000_workflow_update_leases';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "workflow_update_leases" ("derived_id" varchar(255) not null, "update_id" varchar(255) not null, "expires_at" timestamptz not null, constraint "workflow_update_leases_pkey" primary key ("derived_id"));`,
    );
    this.addSql(`create index "workflow_update_leases_expires_at_index" on "workflow_update_leases" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "workflow_update_leases" cascade;`);
  }
}
