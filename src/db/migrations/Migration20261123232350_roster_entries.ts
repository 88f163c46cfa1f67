import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * The company roster: one row per staged beneficiary (the person is a `users` row created by
 * staging), and invitation links pointing at their roster entry. The trigger
 * `roster_entries_latest_link` keeps each entry's copy of its newest link (status, expiry,
 * creation) in step with invitation_links, whoever writes them, so the roster list filters by link
 * status through an index instead of finding every entry's latest link on each read.
 */
export class Migration20261123232350_roster_entries extends Migration {
  override name = 'Migration20261123232350_roster_entries';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "roster_entries" ("id" uuid not null default gen_random_uuid(), "company_id" uuid not null, "user_id" uuid not null, "nationality" varchar(100) null, "status" text not null default 'staged', "package_id" uuid null, "contract_item_id" uuid null, "unit_price_sar" numeric(12,2) null, "created_by" uuid null, "link_status" text null, "link_expires_at" timestamptz null, "link_created_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "roster_entries_company_created_index" on "roster_entries" ("company_id", "created_at" desc, "id" desc);`);
    this.addSql(
      `create index "roster_entries_company_status_created_index" on "roster_entries" ("company_id", "status", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "roster_entries_company_link_created_index" on "roster_entries" ("company_id", "link_status", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create index "roster_entries_user_index" on "roster_entries" ("user_id");`);
    this.addSql(`alter table "roster_entries" add constraint "roster_entries_company_user_unique" unique ("company_id", "user_id");`);

    this.addSql(`alter table "invitation_links" add "roster_entry_id" uuid null;`);
    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_roster_entry_id_foreign" foreign key ("roster_entry_id") references "roster_entries" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "invitation_links_roster_latest_index" on "invitation_links" ("roster_entry_id", "created_at" desc, "id" desc) where "roster_entry_id" is not null;`,
    );

    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_package_id_foreign" foreign key ("package_id") references "packages" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_created_by_foreign" foreign key ("created_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(`alter table "roster_entries" add constraint "roster_entries_status_check" check ("status" in ('staged', 'enabled'));`);
    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_link_status_check" check ("link_status" in ('issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'));`,
    );

    this.addSql(functionSql('roster_entries_copy_latest_link'));
    this.addSql(functionSql('roster_entries_latest_link'));
    this
      .addSql(`create trigger roster_entries_latest_link after insert or delete or update of status, expires_at, created_at, roster_entry_id
      on invitation_links for each row execute function roster_entries_latest_link();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists roster_entries_latest_link on invitation_links;`);
    this.addSql(`drop function if exists roster_entries_latest_link();`);
    this.addSql(`drop function if exists roster_entries_copy_latest_link(uuid);`);
    this.addSql(`alter table "invitation_links" drop constraint "invitation_links_roster_entry_id_foreign";`);

    this.addSql(`drop table if exists "roster_entries" cascade;`);

    this.addSql(`drop index "invitation_links_roster_latest_index";`);
    this.addSql(`alter table "invitation_links" drop column "roster_entry_id";`);
  }
}
