import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * The webhook inbox: verified processor events waiting for the relay to hand them to the
 * settlement workflows (src/webhooks/inbox.ts, relay.ts). Each inserted row NOTIFYs
 * `webhook_inbox` so a relay wakes at once (several in one transaction arrive as one).
 */
export class Migration20261123224302_webhook_inbox extends Migration {
  override name = 'Migration20261123224302_webhook_inbox';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "webhook_inbox" ("id" bigserial primary key, "provider" text not null, "event_id" varchar(255) not null, "payment_id" uuid not null, "type" text not null, "failure_message" varchar(500) null, "received_at" timestamptz not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "last_error" varchar(500) null, "handled_at" timestamptz null);`,
    );
    this.addSql(`create index "webhook_inbox_pending_index" on "webhook_inbox" ("payment_id", "id") where "status" = 'pending';`);
    this.addSql(`create index "webhook_inbox_handled_index" on "webhook_inbox" ("handled_at") where "status" <> 'pending';`);
    this.addSql(`alter table "webhook_inbox" add constraint "webhook_inbox_provider_event_unique" unique ("provider", "event_id");`);

    this.addSql(
      `alter table "webhook_inbox" add constraint "webhook_inbox_payment_id_foreign" foreign key ("payment_id") references "payments" ("id");`,
    );
    this.addSql(
      `alter table "webhook_inbox" add constraint "webhook_inbox_provider_check" check ("provider" in ('mock', 'card_processor'));`,
    );
    this.addSql(
      `alter table "webhook_inbox" add constraint "webhook_inbox_type_check" check ("type" in ('payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled'));`,
    );
    this.addSql(
      `alter table "webhook_inbox" add constraint "webhook_inbox_status_check" check ("status" in ('pending', 'delivered', 'skipped'));`,
    );
    this.addSql(functionSql('notify_webhook_inbox'));
    this.addSql(`create trigger webhook_inbox_notify after insert on webhook_inbox for each row execute function notify_webhook_inbox();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_inbox" cascade;`);
    this.addSql(`drop function if exists notify_webhook_inbox();`);
  }
}
