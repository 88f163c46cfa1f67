import { Migration } from '@mikro-orm/migrations';

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
 * delete) raises its own company.
 */
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
    perform company_charge_versions_record(v_companies);
  end $$;`;

/** Adds companies to the transaction's billing.changed_companies (comma-separated ids, each once). */
const RECORD = `create or replace function company_charge_versions_record(p_companies uuid[]) returns void language plpgsql as $$
  declare
    v_set text := coalesce(current_setting('billing.changed_companies', true), '');
    v_company uuid;
  begin
    foreach v_company in array coalesce(p_companies, array[]::uuid[]) loop
      if strpos(v_set, v_company::text) = 0 then v_set := v_set || v_company::text || ','; end if;
    end loop;
    perform set_config('billing.changed_companies', v_set, true);
  end $$;`;

/** Deferred: at commit, raises the recorded companies and the row's own, each once per transaction, in id order. */
const BUMP = `create or replace function company_charge_versions_bump() returns trigger language plpgsql as $$
  declare
    v_done text := coalesce(current_setting('billing.bumped_companies', true), '');
    v_own uuid[];
    v_todo uuid[];
  begin
    if tg_op = 'INSERT' then v_own := array[new.company_id];
    elsif tg_op = 'DELETE' then v_own := array[old.company_id];
    else v_own := array[old.company_id, new.company_id];
    end if;
    v_todo := array(
      select distinct c from (
        select nullif(x, '')::uuid as c from unnest(string_to_array(coalesce(current_setting('billing.changed_companies', true), ''), ',')) x
        union all select unnest(v_own)
      ) s
       where c is not null and strpos(v_done, c::text) = 0);
    if cardinality(v_todo) = 0 then return null; end if;
    insert into company_charge_versions (company_id, version)
    select c, 1 from unnest(v_todo) c order by c
    on conflict (company_id) do update set version = company_charge_versions.version + 1;
    perform set_config('billing.bumped_companies', v_done || array_to_string(v_todo, ',') || ',', true);
    perform set_config('billing.changed_companies', '', true);
    return null;
  end $$;`;

/** company_charges_refresh as migration MoneyUnits left it: the version raised in the refresh. */
const REFRESH_BEFORE = REFRESH.replace(
  'perform company_charge_versions_record(v_companies);',
  `insert into company_charge_versions (company_id, version)
    select c, 1 from unnest(v_companies) c order by c
    on conflict (company_id) do update set version = company_charge_versions.version + 1;`,
);

const TABLES = ['company_charges', 'company_order_lines'];

export class Migration20261127055000_charge_versions_at_commit extends Migration {
  override name = 'Migration20261127055000_charge_versions_at_commit';

  override up(): void | Promise<void> {
    this.addSql(RECORD);
    this.addSql(BUMP);
    this.addSql(REFRESH);
    for (const table of TABLES) {
      this.addSql(`create constraint trigger ${table}_version_at_commit after insert or update or delete on ${table}
        deferrable initially deferred for each row execute function company_charge_versions_bump();`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of TABLES) this.addSql(`drop trigger if exists ${table}_version_at_commit on ${table};`);
    this.addSql(REFRESH_BEFORE);
    this.addSql(`drop function if exists company_charge_versions_bump();`);
    this.addSql(`drop function if exists company_charge_versions_record(uuid[]);`);
  }
}
