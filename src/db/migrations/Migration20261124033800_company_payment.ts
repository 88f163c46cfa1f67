import { Migration } from '@mikro-orm/migrations';

export class Migration20261124033800_company_payment extends Migration {
  override name = 'Migration20261124033800_company_payment';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payments" drop constraint "payments_method_check";`);
    this.addSql(`alter table "payments" drop constraint "payments_provider_check";`);
    this.addSql(
      `alter table "payments" add constraint "payments_method_check" check ("method" in ('local_debit', 'card_scheme_1', 'card_scheme_2', 'generic_processor', 'wallet_token', 'mobile_wallet', 'company_account'));`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_provider_check" check ("provider" in ('mock', 'card_processor', 'company'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payments" drop constraint "payments_method_check";`);
    this.addSql(`alter table "payments" drop constraint "payments_provider_check";`);
    this.addSql(
      `alter table "payments" add constraint "payments_method_check" check ("method" in ('local_debit', 'card_scheme_1', 'card_scheme_2', 'generic_processor', 'wallet_token', 'mobile_wallet'));`,
    );
    this.addSql(`alter table "payments" add constraint "payments_provider_check" check ("provider" in ('mock', 'card_processor'));`);
  }
}
