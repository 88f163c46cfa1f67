import { Migration } from '@mikro-orm/migrations';

export class Migration20261123202542_audit_and_companies extends Migration {
  override name = 'Migration20261123202542_audit_and_companies';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "companies" ("id" uuid not null default gen_random_uuid(), "cr_number" varchar(30) not null, "name" varchar(255) not null, "contact_name" varchar(255) not null, "contact_email_encrypted" text not null, "contact_email_hash" varchar(64) not null, "contact_phone_encrypted" text not null, "contact_phone_hash" varchar(64) not null, "status" text not null default 'pending', "payment_mode" text null, "approved_by" uuid null, "approved_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "companies" add constraint "companies_cr_number_unique" unique ("cr_number");`);
    this.addSql(`create index "companies_status_created_index" on "companies" ("status", "created_at" desc, "id" desc);`);
    this.addSql(`create index "companies_created_index" on "companies" ("created_at" desc, "id" desc);`);

    this.addSql(
      `create table "company_users" ("id" uuid not null default gen_random_uuid(), "company_id" uuid not null, "user_id" uuid not null, "role" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "company_users_company_id_index" on "company_users" ("company_id");`);
    this.addSql(`alter table "company_users" add constraint "company_users_user_id_unique" unique ("user_id");`);

    this.addSql(
      `create table "audit_logs" ("id" uuid not null default gen_random_uuid(), "action" text not null, "actor_user_id" uuid null, "company_id" uuid null, "entity_type" text not null, "entity_id" text null, "details" jsonb not null, "ip" text null, "user_agent" text null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "audit_logs_actor_user_id_index" on "audit_logs" ("actor_user_id");`);
    this.addSql(
      `create index "audit_logs_company_trail_index" on "audit_logs" ("company_id", "created_at" desc, "id" desc) where "company_id" is not null;`,
    );
    this.addSql(`create index "audit_logs_entity_trail_index" on "audit_logs" ("entity_type", "entity_id", "created_at" desc, "id" desc);`);

    this.addSql(
      `alter table "companies" add constraint "companies_approved_by_foreign" foreign key ("approved_by") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "companies" add constraint "companies_status_check" check ("status" in ('pending', 'approved', 'rejected', 'suspended'));`,
    );
    this.addSql(`alter table "companies" add constraint "companies_payment_mode_check" check ("payment_mode" in ('prepaid', 'flexible'));`);

    this.addSql(
      `alter table "company_users" add constraint "company_users_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "company_users" add constraint "company_users_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "company_users" add constraint "company_users_role_check" check ("role" in ('admin', 'member'));`);

    this.addSql(
      `alter table "audit_logs" add constraint "audit_logs_actor_user_id_foreign" foreign key ("actor_user_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "company_users" drop constraint "company_users_company_id_foreign";`);

    this.addSql(`drop table if exists "companies" cascade;`);
    this.addSql(`drop table if exists "company_users" cascade;`);
    this.addSql(`drop table if exists "audit_logs" cascade;`);
  }
}
