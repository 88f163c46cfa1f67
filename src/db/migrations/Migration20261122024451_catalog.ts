import { Migration } from '@mikro-orm/migrations';

export class Migration20261122024451_catalog extends Migration {
  override name = 'Migration20261122024451_catalog';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "operators" ("id" uuid not null default gen_random_uuid(), "slug" varchar(64) not null, "kind" text not null default 'telecom', "name_en" varchar(255) not null, "name_ar" varchar(255) not null, "logo_url" varchar(1024) null, "is_active" boolean not null default true, "api_base_url" varchar(1024) null, "api_config" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "operators" add constraint "operators_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "packages" ("id" uuid not null default gen_random_uuid(), "operator_id" uuid not null, "name_en" varchar(255) not null, "name_ar" varchar(255) not null, "description_en" text null, "description_ar" text null, "data_amount_mb" int not null, "voice_minutes" int not null, "sms_count" int not null, "validity_days" int not null, "price_sar" numeric(12,2) not null, "price_sar_b2b" numeric(12,2) null, "is_active" boolean not null default true, "is_promotional" boolean not null default false, "is_name_customized" boolean not null default false, "is_price_customized" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "packages_operator_id_index" on "packages" ("operator_id");`);

    this.addSql(`alter table "operators" add constraint "operators_kind_check" check ("kind" in ('telecom', 'esim_store'));`);

    this.addSql(
      `alter table "packages" add constraint "packages_operator_id_foreign" foreign key ("operator_id") references "operators" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "packages" drop constraint "packages_operator_id_foreign";`);

    this.addSql(`drop table if exists "operators" cascade;`);
    this.addSql(`drop table if exists "packages" cascade;`);
  }
}
