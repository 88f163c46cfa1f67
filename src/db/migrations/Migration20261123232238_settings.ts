import { Migration } from '@mikro-orm/migrations';

/** settings: one JSON object per key (`organization`: the seller identity on documents, PATCH /admin/settings/organization). */
export class Migration20261123232238_settings extends Migration {
  override name = 'Migration20261123232238_settings';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "settings" ("key" text not null, "value" jsonb not null, "updated_at" timestamptz not null, "updated_by" uuid null, primary key ("key"));`,
    );

    this.addSql(
      `alter table "settings" add constraint "settings_updated_by_foreign" foreign key ("updated_by") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "settings" cascade;`);
  }
}
