import { Migration } from '@mikro-orm/migrations';

export class Migration20261122032236_payments extends Migration {
  override name = 'Migration20261122032236_payments';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payments" ("id" uuid not null default gen_random_uuid(), "order_id" uuid not null, "user_id" uuid not null, "method" text not null, "provider" text not null, "status" text not null default 'pending', "amount" numeric(12,2) not null, "currency" varchar(3) not null, "idempotency_key" varchar(128) not null, "request_fingerprint" varchar(64) not null, "gateway_transaction_id" varchar(255) null, "client_secret" varchar(512) null, "redirect_url" varchar(1024) null, "receipt_number" varchar(40) null, "failure_reason" text null, "paid_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "payments_order_id_index" on "payments" ("order_id");`);
    this.addSql(`create index "payments_gateway_transaction_id_index" on "payments" ("gateway_transaction_id");`);
    this.addSql(`alter table "payments" add constraint "payments_receipt_number_unique" unique ("receipt_number");`);
    this.addSql(`alter table "payments" add constraint "payments_user_idempotency_key_unique" unique ("user_id", "idempotency_key");`);

    this.addSql(
      `create table "webhook_events" ("id" uuid not null default gen_random_uuid(), "provider" text not null, "event_id" varchar(255) not null, "type" varchar(100) not null, "payment_id" uuid null, "outcome" varchar(32) not null, "detail" jsonb null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "webhook_events_payment_id_index" on "webhook_events" ("payment_id");`);
    this.addSql(`alter table "webhook_events" add constraint "webhook_events_provider_event_unique" unique ("provider", "event_id");`);

    this.addSql(`alter table "payments" add constraint "payments_order_id_foreign" foreign key ("order_id") references "orders" ("id");`);
    this.addSql(`alter table "payments" add constraint "payments_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
    this.addSql(
      `alter table "payments" add constraint "payments_method_check" check ("method" in ('local_debit', 'card_scheme_1', 'card_scheme_2', 'generic_processor', 'wallet_token', 'mobile_wallet'));`,
    );
    this.addSql(`alter table "payments" add constraint "payments_provider_check" check ("provider" in ('mock', 'card_processor'));`);
    this.addSql(
      `alter table "payments" add constraint "payments_status_check" check ("status" in ('pending', 'processing', 'completed', 'failed', 'refunded'));`,
    );

    this.addSql(
      `alter table "webhook_events" add constraint "webhook_events_provider_check" check ("provider" in ('card_processor', 'esim_provider'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payments" cascade;`);
    this.addSql(`drop table if exists "webhook_events" cascade;`);
  }
}
