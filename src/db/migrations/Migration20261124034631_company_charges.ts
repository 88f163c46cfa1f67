import { Migration } from '@mikro-orm/migrations';

/**
 * company_charges and company_order_lines, the billing answer's read model (src/entities/company-charge.ts),
 * kept by statement-level triggers: every statement that writes orders, order_items, activations or
 * payments recomputes the company orders it touched from those tables (company_charges_refresh), and a
 * person's or a package's rename re-renders their charges. The rules are the balance's: a charge is a
 * paid or completed company order with an activation that is not failed or cancelled; a line counts
 * activated, not deleted activations.
 *
 * A refresh first locks, in id order, the orders whose rows may change (company orders, and orders that
 * still have rows after moving out of a company; consumer orders never), and only then deletes and
 * reads: two transactions touching one order (its activation and its payment, say) recompute one after
 * the other, the second from the first's committed rows (the app's writers run in read committed).
 * Locking after the delete let a waiting refresh insert over rows committed meanwhile (a duplicate key).
 *
 * company_charge_versions: each refresh raises the version of every company whose charges or lines it
 * rewrote, in the same transaction, so a reader that sees a version it has seen before may reuse what
 * it read then (src/billing/service.ts).
 */
export const REFRESH = `create or replace function company_charges_refresh(p_orders uuid[]) returns void language plpgsql as $$
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
      insert into company_charges (order_id, company_id, created_at, user_id, package_id, amount_sar, payment_id, charge_json)
      select c.id, c.company_id, c.created_at, c.user_id, c.package_id, c.total_amount_sar, c.payment_id,
             json_build_object('date', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'personName', c.name,
                               'packageName', coalesce(p.name_en, ''), 'amountSar', c.total_amount_sar, 'paymentId', c.payment_id)::text
        from (select o.id, o.company_id, o.created_at, o.user_id, o.total_amount_sar, u.name,
                     (select oi.package_id from order_items oi where oi.order_id = o.id order by oi.id limit 1) as package_id,
                     (select pay.id from payments pay where pay.order_id = o.id and pay.status = 'completed'
                       order by pay.paid_at desc nulls last, pay.created_at desc, pay.id limit 1) as payment_id
                from orders o join users u on u.id = o.user_id
               where o.id = any(v_orders) and o.status in ('paid', 'completed')
                 and exists (select 1 from activations a where a.order_id = o.id and a.status not in ('failed', 'cancelled'))) c
        left join packages p on p.id = c.package_id;
      insert into company_order_lines (order_id, package_id, company_id, activations, halalas)
      select o.id, a.package_id, o.company_id, count(*), (sum(oi.unit_price_sar * oi.quantity) * 100)::bigint
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

/** Each trigger has only its own event's transition tables, so each branch names only those. */
const ON_ORDER_ROWS = `create or replace function company_charges_on_order_rows() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then perform company_charges_refresh(array(select distinct order_id from new_rows));
    elsif tg_op = 'DELETE' then perform company_charges_refresh(array(select distinct order_id from old_rows));
    else perform company_charges_refresh(array(select order_id from new_rows union select order_id from old_rows));
    end if;
    return null;
  end $$;`;
const ON_ORDERS = `create or replace function company_charges_on_orders() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(select id from new_rows));
    return null;
  end $$;`;
const ON_USERS = `create or replace function company_charges_on_users() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(
      select c.order_id from company_charges c join new_rows n on n.id = c.user_id join old_rows o on o.id = n.id
       where n.name is distinct from o.name));
    return null;
  end $$;`;
const ON_PACKAGES = `create or replace function company_charges_on_packages() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(
      select c.order_id from company_charges c join new_rows n on n.id = c.package_id join old_rows o on o.id = n.id
       where n.name_en is distinct from o.name_en));
    return null;
  end $$;`;

/** [trigger, table, event, function]; a row delete of orders reaches both tables by cascade. */
const TRIGGERS: [string, string, 'insert' | 'update' | 'delete', string][] = [
  ['company_charges_orders_insert', 'orders', 'insert', 'company_charges_on_orders'],
  ['company_charges_orders_update', 'orders', 'update', 'company_charges_on_orders'],
  ...(['order_items', 'activations', 'payments'] as const).flatMap((table) =>
    (['insert', 'update', 'delete'] as const).map(
      (event) =>
        [`company_charges_${table}_${event}`, table, event, 'company_charges_on_order_rows'] as [string, string, typeof event, string],
    ),
  ),
  ['company_charges_users_update', 'users', 'update', 'company_charges_on_users'],
  ['company_charges_packages_update', 'packages', 'update', 'company_charges_on_packages'],
];
const TRANSITIONS = {
  insert: 'new table as new_rows',
  update: 'old table as old_rows new table as new_rows',
  delete: 'old table as old_rows',
};

export class Migration20261124034631_company_charges extends Migration {
  override name = 'Migration20261124034631_company_charges';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "company_order_lines" ("order_id" uuid not null, "package_id" uuid not null, "company_id" uuid not null, "activations" int not null, "halalas" bigint not null, primary key ("order_id", "package_id"));`,
    );
    this.addSql(`create index "company_order_lines_company_index" on "company_order_lines" ("company_id");`);

    this.addSql(
      `create table "company_charges" ("order_id" uuid not null, "company_id" uuid not null, "created_at" timestamptz not null, "user_id" uuid not null, "package_id" uuid null, "amount_sar" numeric(12,2) not null, "payment_id" uuid null, "charge_json" text not null, primary key ("order_id"));`,
    );
    this.addSql(
      `create index "company_charges_company_created_index" on "company_charges" ("company_id", "created_at" desc, "order_id" desc);`,
    );
    this.addSql(`create index "company_charges_user_index" on "company_charges" ("user_id");`);
    this.addSql(`create index "company_charges_package_index" on "company_charges" ("package_id");`);
    this.addSql(
      `create table "company_charge_versions" ("company_id" uuid not null, "version" bigint not null, primary key ("company_id"));`,
    );

    this.addSql(
      `alter table "company_order_lines" add constraint "company_order_lines_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "company_charges" add constraint "company_charges_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );

    for (const fn of [REFRESH, ON_ORDER_ROWS, ON_ORDERS, ON_USERS, ON_PACKAGES]) this.addSql(fn);
    for (const [name, table, event, fn] of TRIGGERS) {
      this.addSql(`create trigger ${name} after ${event} on ${table} referencing ${TRANSITIONS[event]}
        for each statement execute function ${fn}();`);
    }
    this.addSql(`select company_charges_refresh(array(select id from orders where company_id is not null));`);
  }

  override down(): void | Promise<void> {
    for (const [name, table] of TRIGGERS) this.addSql(`drop trigger if exists ${name} on ${table};`);
    for (const fn of [
      'company_charges_on_order_rows',
      'company_charges_on_orders',
      'company_charges_on_users',
      'company_charges_on_packages',
    ]) {
      this.addSql(`drop function if exists ${fn}();`);
    }
    this.addSql(`drop function if exists company_charges_refresh(uuid[]);`);
    this.addSql(`drop table if exists "company_order_lines" cascade;`);
    this.addSql(`drop table if exists "company_charges" cascade;`);
    this.addSql(`drop table if exists "company_charge_versions" cascade;`);
  }
}
