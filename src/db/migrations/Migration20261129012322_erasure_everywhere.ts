import { Migration } from '@mikro-orm/migrations';

/**
 * Messages waiting for the message relay carry their recipient's keyed hash, so an erasure deletes the
 * person's pending codes and QR e-mails (src/compliance/erasure.ts). Rows written before have none:
 * they expire on their own (a code within minutes, a QR e-mail within its week).
 */
export class Migration20261129012322_erasure_everywhere extends Migration {
  override name = 'Migration20261129012322_erasure_everywhere';

  override up(): void | Promise<void> {
    this.addSql(`alter table "message_outbox" add "recipient_hash" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "message_outbox" drop column "recipient_hash";`);
  }
}
