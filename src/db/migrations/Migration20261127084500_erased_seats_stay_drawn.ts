import { Migration } from '@mikro-orm/migrations';

const FILTERED = "a.status = 'activated' and a.deleted_at is null";
const UNFILTERED = "a.status = 'activated'";

/**
 * An account's erasure sets deletedAt on the person's activations (src/compliance), and frees nothing a
 * company drew: the billing read model's lines (company_order_lines, the flexible balance's activeLines)
 * count an erased person's activated seat as before, as the contract's activeLines do. The refresh
 * function is rewritten from its current definition (only the activated-lines join changes), so this
 * holds whatever else later migrations change in it.
 */
export class Migration20261127084500_erased_seats_stay_drawn extends Migration {
  override name = 'Migration20261127084500_erased_seats_stay_drawn';

  override up(): void {
    this.addSql(rewrite(FILTERED, UNFILTERED));
    // Lines already dropped for an erased seat come back.
    this.addSql(`select company_charges_refresh(array(select id from orders where company_id is not null));`);
  }

  override down(): void {
    this.addSql(rewrite(UNFILTERED, FILTERED));
    this.addSql(`select company_charges_refresh(array(select id from orders where company_id is not null));`);
  }
}

/** Re-creates company_charges_refresh with `from` replaced by `to` in its body (a body without `from` stays as it is). */
function rewrite(from: string, to: string): string {
  return `do $$
    declare definition text := pg_get_functiondef('company_charges_refresh(uuid[])'::regprocedure);
    begin
      if strpos(definition, ${literal(from)}) > 0 then execute replace(definition, ${literal(from)}, ${literal(to)}); end if;
    end $$;`;
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
