import { Migration } from '@mikro-orm/migrations';

/**
 * Identifiers are proven one at a time. `phone_*` / `email_*` keep only proven identifiers (unique,
 * they sign in); a registration's unproven identifiers wait in `pending_*` (not unique, never a
 * sign-in) until their own code proves them.
 *
 * Existing rows: an account that registered but never verified (no verified_at, consents recorded,
 * which only self-registration does before verifying) proved nothing, so its identifiers become
 * claims. Verified accounts keep both identifiers: which one the shared code proved was not recorded.
 * Open codes that went to two identifiers at once are spent: they could prove either.
 */
export class Migration20261123214916_identifier_proof extends Migration {
  override name = 'Migration20261123214916_identifier_proof';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "users" add "pending_phone_encrypted" text null, add "pending_phone_hash" varchar(64) null, add "pending_email_encrypted" text null, add "pending_email_hash" varchar(64) null;`,
    );
    this.addSql(`create index "users_pending_phone_hash_index" on "users" ("pending_phone_hash");`);
    this.addSql(`create index "users_pending_email_hash_index" on "users" ("pending_email_hash");`);
    this.addSql(
      `update "users" u set "pending_phone_encrypted" = "phone_encrypted", "pending_phone_hash" = "phone_hash",
         "pending_email_encrypted" = "email_encrypted", "pending_email_hash" = "email_hash",
         "phone_encrypted" = null, "phone_hash" = null, "email_encrypted" = null, "email_hash" = null
        where "verified_at" is null and exists (select 1 from "consents" c where c."user_id" = u."id");`,
    );
    this.addSql(
      `update "otp_challenges" set "consumed_at" = now() where "consumed_at" is null and "phone_hash" is not null and "email_hash" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    // Claims nobody else proved meanwhile go back to being the account's identifiers.
    this.addSql(
      `update "users" u set "phone_encrypted" = "pending_phone_encrypted", "phone_hash" = "pending_phone_hash"
        where "phone_hash" is null and "pending_phone_hash" is not null
          and not exists (select 1 from "users" o where o."phone_hash" = u."pending_phone_hash");`,
    );
    this.addSql(
      `update "users" u set "email_encrypted" = "pending_email_encrypted", "email_hash" = "pending_email_hash"
        where "email_hash" is null and "pending_email_hash" is not null
          and not exists (select 1 from "users" o where o."email_hash" = u."pending_email_hash");`,
    );
    this.addSql(`drop index "users_pending_phone_hash_index";`);
    this.addSql(`drop index "users_pending_email_hash_index";`);
    this.addSql(
      `alter table "users" drop column "pending_phone_encrypted", drop column "pending_phone_hash", drop column "pending_email_encrypted", drop column "pending_email_hash";`,
    );
  }
}
