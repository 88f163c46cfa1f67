import { Migration } from '@mikro-orm/migrations';

/**
 * Each identifier gets its own proof state. Until now an unproven identifier waited in `pending_*`
 * and was neither shown nor a sign-in; from now on the account holds it (shown, unique, signs in)
 * with `*_proven = false`, and only a claim on an identifier that another account already holds
 * stays in `pending_*`.
 *
 * Existing rows: every held identifier was proven (or entered by staff), so the default is true.
 * A claim becomes the account's identifier when nobody holds it; of several accounts claiming one
 * identifier, an account that signed in wins over one that never did, then the newest.
 */
export class Migration20261127012841_identifier_proof_state extends Migration {
  override name = 'Migration20261127012841_identifier_proof_state';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add "phone_proven" boolean not null default true, add "email_proven" boolean not null default true;`);
    for (const kind of ['phone', 'email']) {
      this.addSql(
        `with claim as (
           select distinct on (u."pending_${kind}_hash") u."id"
             from "users" u
            where u."pending_${kind}_hash" is not null and u."${kind}_hash" is null
              and not exists (select 1 from "users" o where o."${kind}_hash" = u."pending_${kind}_hash")
            order by u."pending_${kind}_hash", (u."verified_at" is not null) desc, u."created_at" desc, u."id"
         )
         update "users" u set "${kind}_hash" = u."pending_${kind}_hash", "${kind}_encrypted" = u."pending_${kind}_encrypted",
                "${kind}_proven" = false, "pending_${kind}_hash" = null, "pending_${kind}_encrypted" = null
           from claim where u."id" = claim."id";`,
      );
    }
  }

  override down(): void | Promise<void> {
    // Unproven identifiers go back to being claims.
    for (const kind of ['phone', 'email']) {
      this.addSql(
        `update "users" set "pending_${kind}_hash" = "${kind}_hash", "pending_${kind}_encrypted" = "${kind}_encrypted",
                "${kind}_hash" = null, "${kind}_encrypted" = null
          where not "${kind}_proven";`,
      );
    }
    this.addSql(`alter table "users" drop column "phone_proven", drop column "email_proven";`);
  }
}
