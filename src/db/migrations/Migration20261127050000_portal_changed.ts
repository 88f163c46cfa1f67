import { Migration } from '@mikro-orm/migrations';

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

/** The distinct tags of the rows `r` a statement changed, from the rows' relation `rows`; nulls are dropped. */
const TAGS: Record<string, string> = {
  companies: `select unnest(array['company:' || r.id, 'companies', 'links', 'quotes']) from rows r`,
  company_users: `select unnest(array['company:' || r.company_id, 'user:' || r.user_id]) from rows r`,
  roster_entries: `select 'company:' || r.company_id from rows r`,
  invitation_links: `select unnest(array['company:' || r.company_id, 'links']) from rows r`,
  contracts: `select 'company:' || r.company_id from rows r`,
  contract_items: `select 'company:' || c.company_id from rows r join contracts c on c.id = r.contract_id`,
  contract_payments: `select 'company:' || c.company_id from rows r join contracts c on c.id = r.contract_id`,
  company_charges: `select 'company:' || r.company_id from rows r`,
  company_order_lines: `select 'company:' || r.company_id from rows r`,
  orders: `select 'company:' || r.company_id from rows r where r.company_id is not null`,
  order_items: `select 'company:' || o.company_id from rows r join orders o on o.id = r.order_id where o.company_id is not null`,
  activations: `select 'company:' || o.company_id from rows r join orders o on o.id = r.order_id where o.company_id is not null
                union all
                select 'user:' || r.user_id from rows r where exists (select 1 from roster_entries e where e.user_id = r.user_id)`,
  quote_versions: `select unnest(array['company:' || r.company_id, 'quotes']) from rows r`,
  quote_items: `select unnest(array['company:' || v.company_id, 'quotes']) from rows r join quote_versions v on v.id = r.quote_version_id`,
  packages: `select 'all' from rows r`,
};

/** Assigns v_tags the distinct tags of `tags` read from the relation `rows`. */
const tagsOf = (tags: string, rows: string) => `
          v_tags := array(select distinct t from (${tags.replaceAll('from rows r', `from ${rows} r`)}) x(t) where t is not null);`;

/** The statement-level function of `table`: each event's branch reads only the transition tables it has. */
function statementFunction(table: string): string {
  const tags = TAGS[table];
  return `create or replace function portal_changed_${table}() returns trigger language plpgsql as $$
        declare
          v_tags text[];
          v_tag text;
        begin
          if tg_op = 'INSERT' then ${tagsOf(tags, 'new_rows')}
          elsif tg_op = 'DELETE' then ${tagsOf(tags, 'old_rows')}
          else ${tagsOf(tags, '(select * from new_rows union all select * from old_rows)')}
          end if;
          if cardinality(v_tags) = 0 then return null; end if;
          foreach v_tag in array v_tags loop perform pg_notify('portal_changed', v_tag); end loop;
          return null;
        end $$;`;
}

const TRANSITIONS = {
  insert: 'new table as new_rows',
  update: 'old table as old_rows new table as new_rows',
  delete: 'old table as old_rows',
} as const;
const EVENTS = Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[];

/** The columns of users an answer shows or a guard reads; of operators, those the catalog shows or filters on. */
const USER_COLUMNS = 'name, phone_encrypted, email_encrypted, identity_type, app_role, managed_areas, managed_areas_write, is_active';
const OPERATOR_COLUMNS = 'slug, kind, name_en, name_ar, is_active';

const ROW_FUNCTION = `create or replace function portal_changed_row() returns trigger language plpgsql as $$
      begin
        if tg_table_name <> 'users' then
          perform pg_notify('portal_changed', 'all');
        elsif tg_op = 'DELETE' then
          perform pg_notify('portal_changed', 'user:' || old.id);
          perform pg_notify('portal_changed', 'users');
        else
          perform pg_notify('portal_changed', 'user:' || new.id);
          perform pg_notify('portal_changed', 'users');
        end if;
        return null;
      end $$;`;

export class Migration20261127050000_portal_changed extends Migration {
  override up(): void {
    for (const table of Object.keys(TAGS)) {
      this.addSql(statementFunction(table));
      for (const event of EVENTS) {
        this.addSql(
          `create trigger ${table}_portal_changed_${event} after ${event} on ${table} referencing ${TRANSITIONS[event]} ` +
            `for each statement execute function portal_changed_${table}();`,
        );
      }
    }
    this.addSql(ROW_FUNCTION);
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
    for (const table of Object.keys(TAGS)) {
      for (const event of EVENTS) this.addSql(`drop trigger if exists ${table}_portal_changed_${event} on ${table};`);
      this.addSql(`drop function if exists portal_changed_${table}();`);
    }
  }
}
