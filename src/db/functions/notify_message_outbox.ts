/**
 * NOTIFY `message_outbox` on each insert, so a message relay wakes at once.
 */
export const sql = String.raw`create or replace function notify_message_outbox() returns trigger language plpgsql as $$
      begin
        perform pg_notify('message_outbox', '');
        return null;
      end $$;`;
