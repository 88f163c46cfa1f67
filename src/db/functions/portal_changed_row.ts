/**
 * Row trigger on users (the columns an answer shows or a guard reads) and operators: NOTIFY `portal_changed` with
 * `user:<id>` and `users`, or `all` for an operator (docs/decisions/portal-reads.md).
 */
export const sql = String.raw`create or replace function portal_changed_row() returns trigger language plpgsql as $$
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
