import { Migration } from '@mikro-orm/migrations';

/** GET /admin/users lists staff newest first: a partial index keeps the list off the end users' rows. */
export class Migration20261123232842_staff_users_index extends Migration {
  override name = 'Migration20261123232842_staff_users_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "users_staff_created_index" on "users" ("created_at" desc, "id" desc) where "app_role" in ('activation_officer', 'support', 'admin', 'super_admin');`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "users_staff_created_index";`);
  }
}
