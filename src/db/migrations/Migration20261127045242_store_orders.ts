import { Migration } from '@mikro-orm/migrations';

/**
 * The eSIM store, part 2 (src/store/): device acknowledgements and store orders, whose id is their
 * orders row's (same id, total in US cents, currency USD); the issued profile stored encrypted.
 */
export class Migration20261127045242_store_orders extends Migration {
  override name = 'Migration20261127045242_store_orders';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "store_device_acknowledgements" ("id" uuid not null default gen_random_uuid(), "user_id" uuid not null, "device_model" varchar(100) not null, "acknowledged_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "store_device_acknowledgements_user_index" on "store_device_acknowledgements" ("user_id");`);

    this.addSql(
      `create table "store_orders" ("id" uuid not null, "user_id" uuid not null, "product_id" uuid not null, "provider_id" uuid not null, "device_acknowledgement_id" uuid not null, "sku" varchar(100) not null, "status" text not null, "product_snapshot" jsonb not null, "charge_usd_cents" bigint not null, "display_currency" varchar(3) not null, "display_minor" bigint not null, "fx" jsonb null, "payment_id" uuid null, "profile_encrypted" text null, "failure_reason" varchar(255) null, "deliver_by" timestamptz null, "requeues" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, "issued_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "store_orders_user_created_index" on "store_orders" ("user_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "store_orders_status_created_index" on "store_orders" ("status", "created_at");`);

    this.addSql(
      `alter table "store_device_acknowledgements" add constraint "store_device_acknowledgements_user_id_foreign" foreign key ("user_id") references "users" ("id");`,
    );

    this.addSql(
      `alter table "store_orders" add constraint "store_orders_id_foreign" foreign key ("id") references "orders" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "store_orders" add constraint "store_orders_user_id_foreign" foreign key ("user_id") references "users" ("id");`,
    );
    this.addSql(
      `alter table "store_orders" add constraint "store_orders_product_id_foreign" foreign key ("product_id") references "store_products" ("id");`,
    );
    this.addSql(
      `alter table "store_orders" add constraint "store_orders_provider_id_foreign" foreign key ("provider_id") references "operators" ("id");`,
    );
    this.addSql(
      `alter table "store_orders" add constraint "store_orders_device_acknowledgement_id_foreign" foreign key ("device_acknowledgement_id") references "store_device_acknowledgements" ("id");`,
    );
    this.addSql(
      `alter table "store_orders" add constraint "store_orders_status_check" check ("status" in ('pending_payment', 'paid', 'provisioning', 'awaiting_provider', 'issued', 'failed', 'expired'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "store_orders" drop constraint "store_orders_device_acknowledgement_id_foreign";`);

    this.addSql(`drop table if exists "store_device_acknowledgements" cascade;`);
    this.addSql(`drop table if exists "store_orders" cascade;`);
  }
}
