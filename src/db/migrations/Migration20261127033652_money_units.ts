import { Migration } from '@mikro-orm/migrations';
import { REFRESH as REFRESH_SAR } from './Migration20261124034631_company_charges';

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
 * hundredth (src/payments/money.ts lists those it knows) would be converted wrongly, so the migration
 * refuses it and changes nothing.
 *
 * company_charges_refresh reads the integer columns; the charge entry it renders keeps its text
 * (`"amountSar" : 49.50`, the 2-decimal total as a JSON number), formatted from the halalas by
 * halalas_sar_text, so the billing answer is byte for byte what it was. The rows already rendered are
 * kept as they are.
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

/** Currencies whose minor unit is not a hundredth (src/payments/money.ts, as of this migration). */
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

/**
 * "49.50" from 4950, "0.01" from 1, "-0.50" from -50: the digits, at least three (lpad also cuts longer
 * text, hence greatest), with the point before the last two; no arithmetic on the amount.
 */
const SAR_TEXT = `create or replace function halalas_sar_text(p_halalas bigint) returns text language sql immutable strict as $$
  select case when p_halalas < 0 then '-' else '' end || left(d, -2) || '.' || right(d, 2)
    from (select lpad(abs(p_halalas)::text, greatest(length(abs(p_halalas)::text), 3), '0') as d) digits
  $$;`;

/** company_charges_refresh (migration CompanyCharges) on the integer columns; everything else as it was. */
const REFRESH = `create or replace function company_charges_refresh(p_orders uuid[]) returns void language plpgsql as $$
  declare
    v_orders uuid[];
    v_companies uuid[];
  begin
    if coalesce(cardinality(p_orders), 0) = 0 then return; end if;
    perform 1 from orders o
      where o.id = any(p_orders)
        and (o.company_id is not null
             or exists (select 1 from company_charges c where c.order_id = o.id)
             or exists (select 1 from company_order_lines l where l.order_id = o.id))
      order by o.id for update;
    with charges as (delete from company_charges where order_id = any(p_orders) returning company_id),
         lines as (delete from company_order_lines where order_id = any(p_orders) returning company_id)
    select array(select company_id from charges union select company_id from lines) into v_companies;
    select array_agg(id order by id) into v_orders from orders where id = any(p_orders) and company_id is not null;
    if v_orders is not null then
      v_companies := array(select unnest(v_companies) union select company_id from orders where id = any(v_orders));
      insert into company_charges (order_id, company_id, created_at, user_id, package_id, amount_halalas, payment_id, charge_json)
      select c.id, c.company_id, c.created_at, c.user_id, c.package_id, c.total_halalas, c.payment_id,
             json_build_object('date', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'personName', c.name,
                               'packageName', coalesce(p.name_en, ''), 'amountSar', halalas_sar_text(c.total_halalas)::json,
                               'paymentId', c.payment_id)::text
        from (select o.id, o.company_id, o.created_at, o.user_id, o.total_halalas, u.name,
                     (select oi.package_id from order_items oi where oi.order_id = o.id order by oi.id limit 1) as package_id,
                     (select pay.id from payments pay where pay.order_id = o.id and pay.status = 'completed'
                       order by pay.paid_at desc nulls last, pay.created_at desc, pay.id limit 1) as payment_id
                from orders o join users u on u.id = o.user_id
               where o.id = any(v_orders) and o.status in ('paid', 'completed')
                 and exists (select 1 from activations a where a.order_id = o.id and a.status not in ('failed', 'cancelled'))) c
        left join packages p on p.id = c.package_id;
      insert into company_order_lines (order_id, package_id, company_id, activations, halalas)
      select o.id, a.package_id, o.company_id, count(*), sum(oi.unit_price_halalas * oi.quantity)::bigint
        from orders o
        join activations a on a.order_id = o.id and a.status = 'activated' and a.deleted_at is null
        join order_items oi on oi.id = a.order_item_id
       where o.id = any(v_orders) and o.status in ('paid', 'completed')
       group by o.id, a.package_id, o.company_id;
    end if;
    insert into company_charge_versions (company_id, version)
    select c, 1 from unnest(v_companies) c order by c
    on conflict (company_id) do update set version = company_charge_versions.version + 1;
  end $$;`;

export class Migration20261127033652_money_units extends Migration {
  override name = 'Migration20261127033652_money_units';

  override up(): void | Promise<void> {
    this.addSql(REFUSE_OTHER_MINOR_UNITS);
    for (const [table, from, to] of COLUMNS) {
      this.addSql(`alter table "${table}" rename column "${from}" to "${to}";`);
      this.addSql(`alter table "${table}" alter column "${to}" type bigint using round("${to}" * 100)::bigint;`);
    }
    this.addSql(SAR_TEXT);
    this.addSql(REFRESH);
  }

  override down(): void | Promise<void> {
    for (const [table, from, to] of COLUMNS) {
      this.addSql(`alter table "${table}" alter column "${to}" type numeric(12,2) using "${to}" * 0.01;`);
      this.addSql(`alter table "${table}" rename column "${to}" to "${from}";`);
    }
    this.addSql(REFRESH_SAR);
    this.addSql(`drop function if exists halalas_sar_text(bigint);`);
  }
}
