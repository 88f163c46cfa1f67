/**
 * notify_auth_changed as migration AuthChangedNotify created it, before device_blocklist. Applied by
 * AuthChangedNotify's up and Blocklists' down.
 *
 * Superseded: history, never edited; the current definition is ../notify_auth_changed.ts.
 */
export const sql = String.raw`create or replace function notify_auth_changed() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'token_blocklist' then
          perform pg_notify('auth_changed', 'token:' || new.token_hash);
        elsif tg_table_name = 'sessions' then
          perform pg_notify('auth_changed', 'user:' || coalesce(new.user_id, old.user_id)::text);
        else
          perform pg_notify('auth_changed', 'user:' || coalesce(new.id, old.id)::text);
        end if;
        return null;
      end $$;`;
