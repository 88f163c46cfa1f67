import { Migration } from '@mikro-orm/migrations';
import { functionSql, supersededFunctionSql } from '../functions';

const TABLES = ['company_charges', 'company_order_lines'];

/**
 * The billing read model's version rows are raised at commit, not in the statement that changed the
 * charges. company_charges_refresh locks the orders it recomputes, then raised the version row of
 * their company, and that row stayed locked until commit. A transaction that locked an order in a
 * later statement (its own UPDATE of an order the first statement's refresh had not locked) could
 * then wait for a transaction that held the order and was waiting for the version row: a deadlock
 * (test/api/billing-charges.test.ts saw one; docs/decisions/portal-reads.md).
 *
 * Now the refresh only records its companies in a transaction-local setting
 * (billing.changed_companies), and a deferred constraint trigger on company_charges and
 * company_order_lines raises them at commit, after every statement of the transaction has taken
 * its row locks, in company id order. A version still changes in the same transaction as the rows it
 * stands for (a repeatable-read reader sees both or neither), and only when a charge or line row of
 * the transaction changed. The trigger's first firing raises every recorded company; the rest find
 * them in billing.bumped_companies and return. A row changed outside a refresh (an order's cascade
 * delete) raises its own company. A table with raises pending cannot be altered in the same
 * transaction: a migration that refreshes and then alters company_charges or company_order_lines sets
 * these constraints immediate first.
 *
 * The refresh as this migration left it (its version upsert replaced by company_charge_versions_record) is
 * src/db/functions/superseded/company_charges_refresh.v3.ts.
 */
export class Migration20261127055000_charge_versions_at_commit extends Migration {
  override name = 'Migration20261127055000_charge_versions_at_commit';

  override up(): void | Promise<void> {
    this.addSql(functionSql('company_charge_versions_record'));
    this.addSql(functionSql('company_charge_versions_bump'));
    this.addSql(supersededFunctionSql('company_charges_refresh.v3'));
    for (const table of TABLES) {
      this.addSql(`create constraint trigger ${table}_version_at_commit after insert or update or delete on ${table}
        deferrable initially deferred for each row execute function company_charge_versions_bump();`);
    }
  }

  override down(): void | Promise<void> {
    // A refresh earlier in this transaction (a later migration's down) left raises pending, and a table with
    // pending trigger events cannot be altered: fire them now.
    this.addSql(`set constraints ${TABLES.map((table) => `${table}_version_at_commit`).join(', ')} immediate;`);
    for (const table of TABLES) this.addSql(`drop trigger if exists ${table}_version_at_commit on ${table};`);
    this.addSql(supersededFunctionSql('company_charges_refresh.v2'));
    this.addSql(`drop function if exists company_charge_versions_bump();`);
    this.addSql(`drop function if exists company_charge_versions_record(uuid[]);`);
  }
}
