import { Migration } from '@mikro-orm/migrations';

/**
 * A create's Idempotency-Key (optional header of POST /activations), unique per person: a client that
 * lost the answer repeats the request and gets the first answer (src/activations/create.ts).
 */
export class Migration20261129040000_activation_create_keys extends Migration {
  override name = 'Migration20261129040000_activation_create_keys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "activations" add "create_key" varchar(128) null;`);
    this.addSql(
      `create unique index "activations_create_key_unique" on "activations" ("user_id", "create_key") where create_key is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "activations_create_key_unique";`);
    this.addSql(`alter table "activations" drop column "create_key";`);
  }
}
