import { Migration } from '@mikro-orm/migrations';

/** E-mail change codes (`change_email`): PUT /auth/me sends one to a new address, verify-change-email spends it. */
export class Migration20261123215403_email_change extends Migration {
  override name = 'Migration20261123215403_email_change';

  override up(): void | Promise<void> {
    this.addSql(`alter table "otp_challenges" drop constraint "otp_challenges_purpose_check";`);
    this.addSql(
      `alter table "otp_challenges" add constraint "otp_challenges_purpose_check" check ("purpose" in ('register', 'login', 'change_phone', 'change_email'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "otp_challenges" where "purpose" = 'change_email';`);
    this.addSql(`alter table "otp_challenges" drop constraint "otp_challenges_purpose_check";`);
    this.addSql(
      `alter table "otp_challenges" add constraint "otp_challenges_purpose_check" check ("purpose" in ('register', 'login', 'change_phone'));`,
    );
  }
}
