import { Migration } from '@mikro-orm/migrations';
import { functionSql, supersededFunctionSql } from '../functions';

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
 *
 * The refresh as this migration created it is src/db/functions/superseded/company_charges_refresh.v1.ts; the
 * functions are src/db/functions (docs/decisions/sql-functions.md).
 */
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

    this.addSql(supersededFunctionSql('company_charges_refresh.v1'));
    for (const fn of [
      'company_charges_on_order_rows',
      'company_charges_on_orders',
      'company_charges_on_users',
      'company_charges_on_packages',
    ] as const) {
      this.addSql(functionSql(fn));
    }
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
