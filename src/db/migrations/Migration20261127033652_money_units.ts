import { Migration } from '@mikro-orm/migrations';
import { functionSql, supersededFunctionSql } from '../functions';

/**
 * Money in integer minor units in every column (issue 21). The numeric(12,2) SAR columns become bigint
 * halalas, the payment's amount becomes `amount_minor` (minor units of its own `currency`), converted in
 * place: each column is renamed and retyped with `round(x * 100)`, exact because numeric(12,2) holds no
 * third decimal. Retyping in place keeps the column's position, NOT NULL and the absence of a default,
 * and fires no trigger (the billing read model's triggers would otherwise recompute every company order
 * on the orders and order_items updates). No index or constraint names these columns.
 *
 * Payments and orders are converted at 100 minor units per major unit: every currency the service
 * handles has 2 decimals (it writes SAR; tests use USD). A row in a currency whose minor unit is not a
 * hundredth (src/lib/money.ts lists those it knows) would be converted wrongly, so the migration
 * refuses it and changes nothing.
 *
 * company_charges_refresh reads the integer columns; the charge entry it renders keeps its text
 * (`"amountSar" : 49.50`, the 2-decimal total as a JSON number), formatted from the halalas by
 * halalas_sar_text, so the billing answer is byte for byte what it was. The rows already rendered are
 * kept as they are. The refresh as this migration left it is src/db/functions/superseded/company_charges_refresh.v2.ts.
 */
const COLUMNS: [table: string, from: string, to: string][] = [
  ['packages', 'price_sar', 'price_halalas'],
  ['packages', 'price_sar_b2b', 'price_b2b_halalas'],
  ['orders', 'total_amount_sar', 'total_halalas'],
  ['order_items', 'unit_price_sar', 'unit_price_halalas'],
  ['payments', 'amount', 'amount_minor'],
  ['roster_entries', 'unit_price_sar', 'unit_price_halalas'],
  ['company_charges', 'amount_sar', 'amount_halalas'],
];

/** Currencies whose minor unit is not a hundredth (src/lib/money.ts, then src/payments/money.ts, as of this migration). */
const NOT_HUNDREDTHS = `'JPY', 'KWD', 'BHD', 'OMR', 'JOD'`;

const REFUSE_OTHER_MINOR_UNITS = `do $$
  declare v_currencies text;
  begin
    select string_agg(distinct c, ', ' order by c) into v_currencies
      from (select upper(currency) as c from orders union all select upper(currency) from payments) x
     where c in (${NOT_HUNDREDTHS});
    if v_currencies is not null then
      raise exception 'orders or payments in % cannot be converted at 100 minor units per unit; convert them first', v_currencies;
    end if;
  end $$;`;

export class Migration20261127033652_money_units extends Migration {
  override name = 'Migration20261127033652_money_units';

  override up(): void | Promise<void> {
    this.addSql(REFUSE_OTHER_MINOR_UNITS);
    for (const [table, from, to] of COLUMNS) {
      this.addSql(`alter table "${table}" rename column "${from}" to "${to}";`);
      this.addSql(`alter table "${table}" alter column "${to}" type bigint using round("${to}" * 100)::bigint;`);
    }
    this.addSql(functionSql('halalas_sar_text'));
    this.addSql(supersededFunctionSql('company_charges_refresh.v2'));
  }

  override down(): void | Promise<void> {
    for (const [table, from, to] of COLUMNS) {
      this.addSql(`alter table "${table}" alter column "${to}" type numeric(12,2) using "${to}" * 0.01;`);
      this.addSql(`alter table "${table}" rename column "${to}" to "${from}";`);
    }
    this.addSql(supersededFunctionSql('company_charges_refresh.v1'));
    this.addSql(`drop function if exists halalas_sar_text(bigint);`);
  }
}
