/**
 * NOTIFY `webhook_inbox` on each insert, so a relay wakes at once (several in one transaction arrive as one).
 */
export const sql = String.raw`create or replace function notify_webhook_inbox() returns trigger language plpgsql as $$
      begin
        perform pg_notify('webhook_inbox', '');
        return null;
      end $$;`;
