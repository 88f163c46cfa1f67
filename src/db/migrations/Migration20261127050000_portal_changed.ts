import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 23: the portal and admin reads are kept in each API process (src/db/read-cache.ts) and
 * forgotten when a row they were read from changes. Row triggers on the tables they read NOTIFY
 * `portal_changed` with a tag (PostgreSQL sends one notification per distinct payload per
 * transaction, so a 500-row mint notifies its company once):
 * - `company:<id>` for any row of a company (contract lines, payments, order items and activations
 *   through their contract or order), `user:<id>` for a membership, an activation or a user's shown
 *   columns, and `links`, `quotes`, `companies`, `users` for the admin lists;
 * - `all` for packages and operators (names and prices shown by many answers; rare changes).
 * Users notify only when a column an answer shows or a guard reads changes (not on sign-in's
 * updated_at), so signing in evicts nothing.
 */
const TABLES = [
  'companies',
  'company_users',
  'roster_entries',
  'invitation_links',
  'contracts',
  'contract_items',
  'contract_payments',
  'company_charges',
  'company_charge_versions',
  'company_order_lines',
  'orders',
  'order_items',
  'activations',
  'quote_versions',
  'quote_items',
  'packages',
  'operators',
];
const USER_COLUMNS = 'name, phone_encrypted, email_encrypted, identity_type, app_role, managed_areas, managed_areas_write, is_active';

export class Migration20261127050000_portal_changed extends Migration {
  override up(): void {
    this.addSql(`create or replace function notify_portal_changed() returns trigger language plpgsql as $$
      declare
        rows jsonb[] := array[]::jsonb[];
        j jsonb;
        company uuid;
      begin
        if tg_op <> 'DELETE' then rows := rows || to_jsonb(new); end if;
        if tg_op <> 'INSERT' then rows := rows || to_jsonb(old); end if;
        foreach j in array rows loop
          company := null;
          case tg_table_name
            when 'companies' then
              company := (j->>'id')::uuid;
              perform pg_notify('portal_changed', 'companies');
              perform pg_notify('portal_changed', 'links');
              perform pg_notify('portal_changed', 'quotes');
            when 'company_users' then
              company := (j->>'company_id')::uuid;
              perform pg_notify('portal_changed', 'user:' || (j->>'user_id'));
            when 'invitation_links' then
              company := (j->>'company_id')::uuid;
              perform pg_notify('portal_changed', 'links');
            when 'contract_items', 'contract_payments' then
              select c.company_id into company from contracts c where c.id = (j->>'contract_id')::uuid;
            when 'order_items' then
              select o.company_id into company from orders o where o.id = (j->>'order_id')::uuid;
            when 'activations' then
              select o.company_id into company from orders o where o.id = (j->>'order_id')::uuid;
              perform pg_notify('portal_changed', 'user:' || (j->>'user_id'));
            when 'quote_versions' then
              company := (j->>'company_id')::uuid;
              perform pg_notify('portal_changed', 'quotes');
            when 'quote_items' then
              select v.company_id into company from quote_versions v where v.id = (j->>'quote_version_id')::uuid;
              perform pg_notify('portal_changed', 'quotes');
            when 'users' then
              perform pg_notify('portal_changed', 'user:' || (j->>'id'));
              perform pg_notify('portal_changed', 'users');
            when 'packages', 'operators' then
              perform pg_notify('portal_changed', 'all');
            else
              company := (j->>'company_id')::uuid;
          end case;
          if company is not null then perform pg_notify('portal_changed', 'company:' || company); end if;
        end loop;
        return null;
      end $$;`);
    for (const table of TABLES) {
      this.addSql(
        `create trigger ${table}_portal_changed after insert or update or delete on ${table} for each row execute function notify_portal_changed();`,
      );
    }
    this.addSql(
      `create trigger users_portal_changed after update of ${USER_COLUMNS} or delete on users for each row execute function notify_portal_changed();`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists users_portal_changed on users;`);
    for (const table of TABLES) this.addSql(`drop trigger if exists ${table}_portal_changed on ${table};`);
    this.addSql(`drop function if exists notify_portal_changed();`);
  }
}
