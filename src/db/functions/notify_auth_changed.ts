/**
 * Row trigger on users, sessions, token_blocklist and device_blocklist: NOTIFY `auth_changed` with what changed (a
 * user, a token, a device), so every API instance evicts its cached sessions at once.
 */
export const sql = String.raw`create or replace function notify_auth_changed() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'token_blocklist' then
          perform pg_notify('auth_changed', 'token:' || new.token_hash);
        elsif tg_table_name = 'device_blocklist' then
          perform pg_notify('auth_changed', 'device:' || coalesce(new.device_hash, old.device_hash));
        elsif tg_table_name = 'sessions' then
          perform pg_notify('auth_changed', 'user:' || coalesce(new.user_id, old.user_id)::text);
        else
          perform pg_notify('auth_changed', 'user:' || coalesce(new.id, old.id)::text);
        end if;
        return null;
      end $$;`;
