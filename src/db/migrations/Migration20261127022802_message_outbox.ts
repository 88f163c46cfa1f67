import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * The message outbox (src/messages): one-time-code messages a provider did not take within their
 * request, kept encrypted until the worker's message relay delivers them or their code expires. Each
 * insert NOTIFYs `message_outbox`, so a relay wakes at once.
 */
export class Migration20261127022802_message_outbox extends Migration {
  override name = 'Migration20261127022802_message_outbox';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "message_outbox" ("id" bigserial primary key, "channel" text not null, "purpose" varchar(60) not null, "payload_encrypted" text null, "status" text not null default 'pending', "failure_reason" text null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "last_error" varchar(500) null, "expires_at" timestamptz not null, "created_at" timestamptz not null default now(), "failed_at" timestamptz null);`,
    );
    this.addSql(`create index "message_outbox_pending_index" on "message_outbox" ("next_attempt_at") where "status" = 'pending';`);

    this.addSql(`alter table "message_outbox" add constraint "message_outbox_channel_check" check ("channel" in ('sms', 'email'));`);
    this.addSql(`alter table "message_outbox" add constraint "message_outbox_status_check" check ("status" in ('pending', 'failed'));`);
    this.addSql(
      `alter table "message_outbox" add constraint "message_outbox_failure_reason_check" check ("failure_reason" in ('expired', 'refused'));`,
    );
    this.addSql(functionSql('notify_message_outbox'));
    this.addSql(
      `create trigger message_outbox_notify after insert on message_outbox for each row execute function notify_message_outbox();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "message_outbox" cascade;`);
    this.addSql(`drop function if exists notify_message_outbox();`);
  }
}
