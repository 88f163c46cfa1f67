import { Migration } from '@mikro-orm/migrations';

/**
 * The eSIM store, part 1 (src/store/, src/fx/): providers as operators rows of kind esim_store with
 * their payment mode, async flag and recorded health; products synced from them (money in US cents)
 * with their per-country rows for browsing by country; exchange-rate snapshots.
 */
export class Migration20261127034943_store extends Migration {
  override name = 'Migration20261127034943_store';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "fx_rate_snapshots" ("id" uuid not null default gen_random_uuid(), "currency" varchar(3) not null, "rate_per_usd" numeric(20,10) not null, "source" varchar(100) not null, "fetched_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "fx_rate_snapshots_latest_index" on "fx_rate_snapshots" ("currency", "fetched_at" desc);`);

    this.addSql(
      `create table "store_products" ("id" uuid not null default gen_random_uuid(), "provider_id" uuid not null, "sku" varchar(100) not null, "name_en" varchar(255) not null, "name_ar" varchar(255) not null, "countries" text[] not null, "data_amount_mb" int null, "is_unlimited" boolean not null, "validity_days" int not null, "requires_kyc" boolean not null default false, "price_usd_cents" bigint not null, "is_active" boolean not null, "disabled_by_admin" boolean not null default false, "name_customized" boolean not null default false, "synced_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "store_products_browse_index" on "store_products" ("price_usd_cents", "id") where "is_active";`);
    this.addSql(`alter table "store_products" add constraint "store_products_provider_sku_unique" unique ("provider_id", "sku");`);

    this.addSql(
      `create table "store_product_countries" ("country" varchar(2) not null, "price_usd_cents" bigint not null, "product_id" uuid not null, primary key ("country", "price_usd_cents", "product_id"));`,
    );
    this.addSql(`create index "store_product_countries_product_index" on "store_product_countries" ("product_id");`);

    this.addSql(
      `alter table "operators" add "payment_mode" text null, add "supports_async" boolean not null default false, add "health_ok" boolean null, add "health_checked_at" timestamptz null, add "health_detail" varchar(500) null;`,
    );
    this.addSql(
      `alter table "operators" add constraint "operators_payment_mode_check" check ("payment_mode" in ('internal', 'external'));`,
    );

    this.addSql(
      `alter table "store_products" add constraint "store_products_provider_id_foreign" foreign key ("provider_id") references "operators" ("id");`,
    );

    this.addSql(
      `alter table "store_product_countries" add constraint "store_product_countries_product_id_foreign" foreign key ("product_id") references "store_products" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "store_product_countries" drop constraint "store_product_countries_product_id_foreign";`);

    this.addSql(`drop table if exists "fx_rate_snapshots" cascade;`);
    this.addSql(`drop table if exists "store_products" cascade;`);
    this.addSql(`drop table if exists "store_product_countries" cascade;`);

    this.addSql(`alter table "operators" drop constraint "operators_payment_mode_check";`);
    this.addSql(
      `alter table "operators" drop column "payment_mode", drop column "supports_async", drop column "health_ok", drop column "health_checked_at", drop column "health_detail";`,
    );
  }
}
