/**
 * A run's signals wait for its pending start: its start NOTIFYs `workflow_signals` when signals wait for it.
 */
export const sql = String.raw`create or replace function notify_started_run_signals() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from workflow_signals where workflow_id = new.workflow_id and delivered_at is null) then
          perform pg_notify('workflow_signals', '');
        end if;
        return null;
      end $$;`;
