import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * Issue 23: the portal and admin reads are kept in each API process (src/db/read-cache.ts) and
 * forgotten when a row they were read from changes: triggers on the tables they read NOTIFY
 * `portal_changed` with a tag (docs/decisions/portal-reads.md). Tags: `company:<id>` for a row of a
 * company, `user:<id>` for a membership, a roster person's activation or a user's shown columns,
 * `links`, `quotes`, `companies`, `users` for the admin lists, `all` for packages and operators.
 *
 * A transaction that sends NOTIFY takes a cluster-wide lock at commit (PostgreSQL keeps the queue in
 * commit order), so writes that no kept answer reads send nothing: an order, order item or
 * activation notifies only for a company order, an activation also for a person on a roster (the
 * roster shows their latest activation, whatever the order); users only when a column an answer
 * shows or a guard reads changes (not on sign-in); operators not on a store provider's health check.
 * The triggers are statement-level with transition tables (one per event: PostgreSQL allows one
 * event per trigger with them): a statement works out its distinct tags in one query and returns
 * before any pg_notify when there are none, so a 500-row mint notifies `company:<id>` and `links`
 * once. users and operators keep row triggers: transition tables cannot go with a column list.
 */

/** The tables with a statement-level function of their own, portal_changed_<table> (src/db/functions). */
const TABLES = [
  'companies',
  'company_users',
  'roster_entries',
  'invitation_links',
  'contracts',
  'contract_items',
  'contract_payments',
  'company_charges',
  'company_order_lines',
  'orders',
  'order_items',
  'activations',
  'quote_versions',
  'quote_items',
  'packages',
] as const;

const TRANSITIONS = {
  insert: 'new table as new_rows',
  update: 'old table as old_rows new table as new_rows',
  delete: 'old table as old_rows',
} as const;
const EVENTS = Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[];

/** The columns of users an answer shows or a guard reads; of operators, those the catalog shows or filters on. */
const USER_COLUMNS = 'name, phone_encrypted, email_encrypted, identity_type, app_role, managed_areas, managed_areas_write, is_active';
const OPERATOR_COLUMNS = 'slug, kind, name_en, name_ar, is_active';

export class Migration20261127050000_portal_changed extends Migration {
  override up(): void {
    for (const table of TABLES) {
      this.addSql(functionSql(`portal_changed_${table}` as const));
      for (const event of EVENTS) {
        this.addSql(
          `create trigger ${table}_portal_changed_${event} after ${event} on ${table} referencing ${TRANSITIONS[event]} ` +
            `for each statement execute function portal_changed_${table}();`,
        );
      }
    }
    this.addSql(functionSql('portal_changed_row'));
    this.addSql(
      `create trigger users_portal_changed after update of ${USER_COLUMNS} or delete on users for each row execute function portal_changed_row();`,
    );
    this.addSql(
      `create trigger operators_portal_changed after insert or update of ${OPERATOR_COLUMNS} or delete on operators for each row execute function portal_changed_row();`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists users_portal_changed on users;`);
    this.addSql(`drop trigger if exists operators_portal_changed on operators;`);
    this.addSql(`drop function if exists portal_changed_row();`);
    for (const table of TABLES) {
      for (const event of EVENTS) this.addSql(`drop trigger if exists ${table}_portal_changed_${event} on ${table};`);
      this.addSql(`drop function if exists portal_changed_${table}();`);
    }
  }
}
