/**
 * NOTIFY `workflow_starts` on each insert and each change of a row's due time, so a start relay wakes at once.
 */
export const sql = String.raw`create or replace function notify_workflow_starts() returns trigger language plpgsql as $$
      begin
        perform pg_notify('workflow_starts', '');
        return null;
      end $$;`;
