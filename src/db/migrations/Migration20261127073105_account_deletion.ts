import { Migration } from '@mikro-orm/migrations';

/**
 * Account deletion (src/compliance): the request's and the erasure's times on the user, the retained
 * copy of the phone and e-mail (encrypted, outside the unique identifier hashes), the compliance list's
 * index and the retention schedule's.
 */
export class Migration20261127073105_account_deletion extends Migration {
  override name = 'Migration20261127073105_account_deletion';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "users" add "deletion_requested_at" timestamptz null, add "retain_until" timestamptz null, add "erased_at" timestamptz null, add "retained_phone_encrypted" text null, add "retained_email_encrypted" text null;`,
    );
    this.addSql(
      `create index "users_deletion_requests_index" on "users" ("deletion_requested_at" desc, "id" desc) where "deletion_requested_at" is not null;`,
    );
    this.addSql(
      `create index "users_retention_due_index" on "users" ("retain_until") where "retain_until" is not null and "erased_at" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "users_deletion_requests_index";`);
    this.addSql(`drop index "users_retention_due_index";`);
    this.addSql(
      `alter table "users" drop column "deletion_requested_at", drop column "retain_until", drop column "erased_at", drop column "retained_phone_encrypted", drop column "retained_email_encrypted";`,
    );
  }
}
