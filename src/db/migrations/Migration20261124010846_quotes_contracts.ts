import { Migration } from '@mikro-orm/migrations';

export class Migration20261124010846_quotes_contracts extends Migration {
  override name = 'Migration20261124010846_quotes_contracts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "quote_versions" ("id" uuid not null default gen_random_uuid(), "company_id" uuid not null, "chain_root_id" uuid not null, "version" int not null, "parent_id" uuid null, "status" text not null default 'draft', "needs_user_count" int null, "needs_preference" text null, "needs_budget_halalas" bigint null, "needs_funding_halalas" bigint null, "note" text null, "company_note" text null, "reviewed_by" uuid null, "reviewed_at" timestamptz null, "created_by" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "quote_versions" add constraint "quote_versions_parent_id_unique" unique ("parent_id");`);
    this.addSql(`create index "quote_versions_company_created_index" on "quote_versions" ("company_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "quote_versions_status_index" on "quote_versions" ("status");`);
    this.addSql(`alter table "quote_versions" add constraint "quote_versions_chain_version_unique" unique ("chain_root_id", "version");`);

    this.addSql(
      `create table "quote_items" ("id" uuid not null default gen_random_uuid(), "quote_version_id" uuid not null, "package_id" uuid not null, "qty" int not null, primary key ("id"));`,
    );
    this.addSql(`create index "quote_items_quote_version_id_index" on "quote_items" ("quote_version_id");`);

    this.addSql(
      `create table "contracts" ("id" uuid not null default gen_random_uuid(), "ref" varchar(16) not null, "company_id" uuid not null, "quote_request_id" uuid not null, "payment_mode" text not null, "status" text not null default 'active', "total_halalas" bigint not null, "confirmed_by" uuid null, "confirmed_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "contracts" add constraint "contracts_ref_unique" unique ("ref");`);
    this.addSql(`create unique index "contracts_company_active_unique" on "contracts" ("company_id") where "status" = 'active';`);
    this.addSql(`create index "contracts_company_index" on "contracts" ("company_id", "created_at" desc);`);

    this.addSql(
      `create table "contract_payments" ("id" uuid not null default gen_random_uuid(), "contract_id" uuid not null, "method" text not null, "amount_halalas" bigint not null, "document_name" varchar(255) not null, "document_mime" varchar(64) not null, "document_bytes" bytea not null, "idempotency_key" varchar(128) not null, "confirmed_by" uuid null, "confirmed_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "contract_payments_contract_created_index" on "contract_payments" ("contract_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `alter table "contract_payments" add constraint "contract_payments_contract_key_unique" unique ("contract_id", "idempotency_key");`,
    );

    this.addSql(
      `create table "contract_items" ("id" uuid not null default gen_random_uuid(), "contract_id" uuid not null, "package_id" uuid not null, "qty" int not null, "unit_price_halalas" bigint not null, primary key ("id"));`,
    );
    this.addSql(`create index "contract_items_contract_id_index" on "contract_items" ("contract_id");`);

    this.addSql(
      `alter table "roster_entries" add constraint "roster_entries_contract_item_id_foreign" foreign key ("contract_item_id") references "contract_items" ("id") on delete set null;`,
    );

    this.addSql(`alter table "invitation_links" add "contract_item_id" uuid null;`);
    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_contract_item_id_foreign" foreign key ("contract_item_id") references "contract_items" ("id") on delete set null;`,
    );
    this.addSql(`create index "invitation_links_contract_item_id_index" on "invitation_links" ("contract_item_id");`);

    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_parent_id_foreign" foreign key ("parent_id") references "quote_versions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_reviewed_by_foreign" foreign key ("reviewed_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_created_by_foreign" foreign key ("created_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_status_check" check ("status" in ('draft', 'submitted', 'under_review', 'countered', 'accepted', 'rejected', 'expired'));`,
    );
    this.addSql(
      `alter table "quote_versions" add constraint "quote_versions_needs_preference_check" check ("needs_preference" in ('minutes', 'data', 'mixed'));`,
    );

    this.addSql(
      `alter table "quote_items" add constraint "quote_items_quote_version_id_foreign" foreign key ("quote_version_id") references "quote_versions" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "quote_items" add constraint "quote_items_package_id_foreign" foreign key ("package_id") references "packages" ("id");`,
    );

    this.addSql(
      `alter table "contracts" add constraint "contracts_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "contracts" add constraint "contracts_quote_request_id_foreign" foreign key ("quote_request_id") references "quote_versions" ("id");`,
    );
    this.addSql(
      `alter table "contracts" add constraint "contracts_confirmed_by_foreign" foreign key ("confirmed_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(`alter table "contracts" add constraint "contracts_payment_mode_check" check ("payment_mode" in ('prepaid', 'flexible'));`);
    this.addSql(`alter table "contracts" add constraint "contracts_status_check" check ("status" in ('active'));`);

    this.addSql(
      `alter table "contract_payments" add constraint "contract_payments_contract_id_foreign" foreign key ("contract_id") references "contracts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "contract_payments" add constraint "contract_payments_confirmed_by_foreign" foreign key ("confirmed_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "contract_payments" add constraint "contract_payments_method_check" check ("method" in ('bank_transfer', 'cheque'));`,
    );

    this.addSql(
      `alter table "contract_items" add constraint "contract_items_contract_id_foreign" foreign key ("contract_id") references "contracts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "contract_items" add constraint "contract_items_package_id_foreign" foreign key ("package_id") references "packages" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "quote_versions" drop constraint "quote_versions_parent_id_foreign";`);
    this.addSql(`alter table "quote_items" drop constraint "quote_items_quote_version_id_foreign";`);
    this.addSql(`alter table "contracts" drop constraint "contracts_quote_request_id_foreign";`);
    this.addSql(`alter table "contract_payments" drop constraint "contract_payments_contract_id_foreign";`);
    this.addSql(`alter table "contract_items" drop constraint "contract_items_contract_id_foreign";`);
    this.addSql(`alter table "roster_entries" drop constraint "roster_entries_contract_item_id_foreign";`);
    this.addSql(`alter table "invitation_links" drop constraint "invitation_links_contract_item_id_foreign";`);

    this.addSql(`drop table if exists "quote_versions" cascade;`);
    this.addSql(`drop table if exists "quote_items" cascade;`);
    this.addSql(`drop table if exists "contracts" cascade;`);
    this.addSql(`drop table if exists "contract_payments" cascade;`);
    this.addSql(`drop table if exists "contract_items" cascade;`);

    this.addSql(`drop index "invitation_links_contract_item_id_index";`);
    this.addSql(`alter table "invitation_links" drop column "contract_item_id";`);
  }
}
