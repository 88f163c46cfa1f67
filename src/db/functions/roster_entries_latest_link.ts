/**
 * Row trigger on invitation_links: keeps the roster entries of the written links in step with their newest link
 * (roster_entries_copy_latest_link).
 */
export const sql = String.raw`create or replace function roster_entries_latest_link() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' and old.roster_entry_id is not null then
          perform roster_entries_copy_latest_link(old.roster_entry_id);
        end if;
        if tg_op <> 'DELETE' and new.roster_entry_id is not null
           and (tg_op = 'INSERT' or new.roster_entry_id is distinct from old.roster_entry_id) then
          perform roster_entries_copy_latest_link(new.roster_entry_id);
        end if;
        return null;
      end $$;`;
