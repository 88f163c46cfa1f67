/**
 * Deactivating a user revokes their live sessions in the same transaction, whoever deactivates (API, SQL, tools).
 */
export const sql = String.raw`create or replace function revoke_sessions_of_deactivated_user() returns trigger language plpgsql as $$
      begin
        update sessions set revoked_at = now() where user_id = new.id and revoked_at is null;
        return null;
      end $$;`;
