/**
 * Inserts a statement's net change of the invitation link tallies, then folds the touched keys' rows no other
 * transaction holds (`for update skip locked`), in read committed only (migration AdminLinkTallies).
 */
export const sql = String.raw`create or replace function invitation_link_tallies_add(p_status text[], p_status_links bigint[], p_kind text[], p_hour timestamp with time zone[], p_hour_links bigint[]) returns void language plpgsql as $$
  begin
    insert into invitation_link_status_counts (status, links) select * from unnest(p_status, p_status_links);
    insert into invitation_link_hour_counts (kind, hour, links) select * from unnest(p_kind, p_hour, p_hour_links);
    if current_setting('transaction_isolation') <> 'read committed' then return; end if;
    with gone as (
      delete from invitation_link_status_counts where id in (
        select id from invitation_link_status_counts where status = any(p_status) for update skip locked)
      returning status, links)
    insert into invitation_link_status_counts (status, links)
    select status, sum(links) from gone group by status having sum(links) <> 0;
    with gone as (
      delete from invitation_link_hour_counts where id in (
        select c.id from invitation_link_hour_counts c join unnest(p_kind, p_hour) k(kind, hour) on c.kind = k.kind and c.hour = k.hour
           for update of c skip locked)
      returning kind, hour, links)
    insert into invitation_link_hour_counts (kind, hour, links)
    select kind, hour, sum(links) from gone group by kind, hour having sum(links) <> 0;
  end $$;`;
