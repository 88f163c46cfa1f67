import { Migration } from '@mikro-orm/migrations';

export class Migration20261124024121_admin_links_indexes extends Migration {
  override name = 'Migration20261124024121_admin_links_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "invitation_links_created_index" on "invitation_links" ("created_at" desc, "id" desc);`);
    this.addSql(`create index "invitation_links_status_expiry_index" on "invitation_links" ("status", "expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "invitation_links_created_index";`);
    this.addSql(`drop index "invitation_links_status_expiry_index";`);
  }
}
