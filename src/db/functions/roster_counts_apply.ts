/**
 * Statement trigger on roster_entries: one upsert of the net change of entries per company and status (a company being
 * deleted, its rows going by cascade, is skipped); each branch names only its event's transition tables.
 */
export const sql = String.raw`create or replace function roster_counts_apply() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then 
        insert into roster_counts (company_id, status, entries)
        select d.company_id, d.status, sum(d.delta)
          from (select company_id, status, 1 as delta from new_rows) d
          join companies c on c.id = d.company_id
         group by d.company_id, d.status
        having sum(d.delta) <> 0
         order by d.company_id, d.status
        on conflict (company_id, status) do update set entries = roster_counts.entries + excluded.entries;
        elsif tg_op = 'DELETE' then 
        insert into roster_counts (company_id, status, entries)
        select d.company_id, d.status, sum(d.delta)
          from (select company_id, status, -1 as delta from old_rows) d
          join companies c on c.id = d.company_id
         group by d.company_id, d.status
        having sum(d.delta) <> 0
         order by d.company_id, d.status
        on conflict (company_id, status) do update set entries = roster_counts.entries + excluded.entries;
        else 
        insert into roster_counts (company_id, status, entries)
        select d.company_id, d.status, sum(d.delta)
          from (select company_id, status, 1 as delta from new_rows union all select company_id, status, -1 as delta from old_rows) d
          join companies c on c.id = d.company_id
         group by d.company_id, d.status
        having sum(d.delta) <> 0
         order by d.company_id, d.status
        on conflict (company_id, status) do update set entries = roster_counts.entries + excluded.entries;
        end if;
        return null;
      end $$;`;
