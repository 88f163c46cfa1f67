/**
 * NOTIFY `workflow_signals` on each insert and each change of a row's due time, so a signal relay wakes at once.
 */
export const sql = String.raw`create or replace function notify_workflow_signals() returns trigger language plpgsql as $$
      begin
        perform pg_notify('workflow_signals', '');
        return null;
      end $$;`;
