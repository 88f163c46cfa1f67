import { Migration } from '@mikro-orm/migrations';

export class Migration20261123223423_activation_workflow_started extends Migration {
  override name = 'Migration20261123223423_activation_workflow_started';

  override up(): void | Promise<void> {
    // No backfill: pending rows written before this are checked once by the recovery (describe), which finds
    // those the old start gap stranded and marks the rest.
    this.addSql(`alter table "activations" add "workflow_started_at" timestamptz null;`);
    this.addSql(
      `create index "activations_unstarted_index" on "activations" ("created_at") where "status" = 'pending' and "workflow_started_at" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "activations_unstarted_index";`);
    this.addSql(`alter table "activations" drop column "workflow_started_at";`);
  }
}
