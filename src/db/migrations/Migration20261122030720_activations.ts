import { Migration } from '@mikro-orm/migrations';

export class Migration20261122030720_activations extends Migration {
  override name = 'Migration20261122030720_activations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "orders" ("id" uuid not null default gen_random_uuid(), "user_id" uuid not null, "company_id" uuid null, "status" text not null default 'pending_payment', "total_amount_sar" numeric(12,2) not null, "currency" varchar(3) not null default 'SAR', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "orders_user_id_index" on "orders" ("user_id");`);
    this.addSql(`create index "orders_company_id_index" on "orders" ("company_id");`);

    this.addSql(
      `create table "order_items" ("id" uuid not null default gen_random_uuid(), "order_id" uuid not null, "package_id" uuid not null, "iccid" varchar(255) not null, "quantity" int not null default 1, "unit_price_sar" numeric(12,2) not null, primary key ("id"));`,
    );
    this.addSql(`create index "order_items_order_id_index" on "order_items" ("order_id");`);

    this.addSql(
      `create table "activations" ("id" uuid not null default gen_random_uuid(), "order_id" uuid not null, "order_item_id" uuid not null, "user_id" uuid not null, "operator_id" uuid not null, "package_id" uuid not null, "iccid" varchar(255) not null, "sim_type" text not null default 'physical', "esim_profile" jsonb null, "status" text not null default 'pending', "identity_status" text not null default 'waiting', "identity_ref" varchar(255) null, "identity_verified_at" timestamptz null, "identity_type" text null, "id_number_encrypted" text null, "id_number_hash" varchar(64) null, "assigned_officer_id" uuid null, "activated_at" timestamptz null, "failed_reason" text null, "retain_until" timestamptz null, "deletion_requested_at" timestamptz null, "deleted_at" timestamptz null, "estimated_activation_seconds" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "activations_order_id_index" on "activations" ("order_id");`);
    this.addSql(
      `create index "activations_user_history_index" on "activations" ("user_id", "created_at" desc, "id" desc) where "deleted_at" is null;`,
    );
    this.addSql(`create index "activations_records_index" on "activations" ("created_at" desc, "id" desc);`);
    this.addSql(`create index "activations_status_index" on "activations" ("status");`);
    this.addSql(
      `create unique index "activations_live_iccid_unique" on "activations" ("iccid") where status not in ('failed', 'cancelled') and deleted_at is null;`,
    );

    this.addSql(`alter table "orders" add constraint "orders_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
    this.addSql(
      `alter table "orders" add constraint "orders_status_check" check ("status" in ('pending_payment', 'paid', 'completed', 'cancelled'));`,
    );

    this.addSql(
      `alter table "order_items" add constraint "order_items_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "order_items" add constraint "order_items_package_id_foreign" foreign key ("package_id") references "packages" ("id");`,
    );

    this.addSql(
      `alter table "activations" add constraint "activations_order_id_foreign" foreign key ("order_id") references "orders" ("id");`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_order_item_id_foreign" foreign key ("order_item_id") references "order_items" ("id");`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_user_id_foreign" foreign key ("user_id") references "users" ("id");`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_operator_id_foreign" foreign key ("operator_id") references "operators" ("id");`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_package_id_foreign" foreign key ("package_id") references "packages" ("id");`,
    );
    this.addSql(`alter table "activations" add constraint "activations_sim_type_check" check ("sim_type" in ('physical', 'esim'));`);
    this.addSql(
      `alter table "activations" add constraint "activations_status_check" check ("status" in ('pending', 'in_progress', 'activated', 'failed', 'cancelled'));`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_identity_status_check" check ("identity_status" in ('waiting', 'completed', 'rejected', 'expired', 'error'));`,
    );
    this.addSql(
      `alter table "activations" add constraint "activations_identity_type_check" check ("identity_type" in ('citizen', 'resident', 'visitor'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "order_items" drop constraint "order_items_order_id_foreign";`);
    this.addSql(`alter table "activations" drop constraint "activations_order_id_foreign";`);
    this.addSql(`alter table "activations" drop constraint "activations_order_item_id_foreign";`);

    this.addSql(`drop table if exists "orders" cascade;`);
    this.addSql(`drop table if exists "order_items" cascade;`);
    this.addSql(`drop table if exists "activations" cascade;`);
  }
}
