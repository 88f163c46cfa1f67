import { Migration } from '@mikro-orm/migrations';

export class Migration20261124023257_invitation_link_channel extends Migration {
  override name = 'Migration20261124023257_invitation_link_channel';

  override up(): void | Promise<void> {
    this.addSql(`alter table "invitation_links" add "channel" text null, add "created_by" uuid null;`);
    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_created_by_foreign" foreign key ("created_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_channel_check" check ("channel" in ('email', 'sms', 'email_sms', 'export'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invitation_links" drop constraint "invitation_links_created_by_foreign";`);

    this.addSql(`alter table "invitation_links" drop constraint "invitation_links_channel_check";`);
    this.addSql(`alter table "invitation_links" drop column "channel", drop column "created_by";`);
  }
}
