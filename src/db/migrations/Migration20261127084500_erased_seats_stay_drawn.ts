import { Migration } from '@mikro-orm/migrations';
import { functionSql, supersededFunctionSql } from '../functions';

/**
 * An account's erasure sets deletedAt on the person's activations (src/compliance), and frees nothing a
 * company drew: the billing read model's lines (company_order_lines, the flexible balance's activeLines)
 * count an erased person's activated seat as before, as the contract's activeLines do: the refresh's
 * activated-lines join no longer filters on deleted_at (src/db/functions/company_charges_refresh.ts; down()
 * applies the refresh before it, src/db/functions/superseded/company_charges_refresh.v3.ts).
 */
export class Migration20261127084500_erased_seats_stay_drawn extends Migration {
  override name = 'Migration20261127084500_erased_seats_stay_drawn';

  override up(): void {
    this.addSql(functionSql('company_charges_refresh'));
    // Lines already dropped for an erased seat come back.
    this.addSql(`select company_charges_refresh(array(select id from orders where company_id is not null));`);
  }

  override down(): void {
    this.addSql(supersededFunctionSql('company_charges_refresh.v3'));
    this.addSql(`select company_charges_refresh(array(select id from orders where company_id is not null));`);
  }
}
