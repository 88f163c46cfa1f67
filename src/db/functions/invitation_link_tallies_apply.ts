/**
 * Statement trigger on invitation_links: the net change of the links per status, and per UTC hour minted and expiring,
 * into invitation_link_tallies_add; a statement that changed no status, mint hour or expiry writes nothing.
 */
export const sql = String.raw`create or replace function invitation_link_tallies_apply() returns trigger language plpgsql as $$
    declare
      v_status text[];
      v_status_links bigint[];
      v_kind text[];
      v_hour timestamptz[];
      v_hour_links bigint[];
    begin
      if tg_op = 'INSERT' then 
      select array_agg(status), array_agg(n) into v_status, v_status_links
        from (select status, sum(n) as n from (select status, created_at, expires_at, 1::bigint as n from new_rows) d group by status having sum(n) <> 0) x;
      select array_agg(kind), array_agg(hour), array_agg(n) into v_kind, v_hour, v_hour_links
        from (select kind, hour, sum(n) as n
                from (select 'created' as kind, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00') as hour, n from (select status, created_at, expires_at, 1::bigint as n from new_rows) d
                      union all
                      select status, date_bin('1 hour', expires_at, timestamptz '2000-01-01 00:00:00+00'), n from (select status, created_at, expires_at, 1::bigint as n from new_rows) d where status in ('issued', 'sent', 'exported')) h
               group by kind, hour having sum(n) <> 0) x;
      elsif tg_op = 'DELETE' then 
      select array_agg(status), array_agg(n) into v_status, v_status_links
        from (select status, sum(n) as n from (select status, created_at, expires_at, -1::bigint as n from old_rows) d group by status having sum(n) <> 0) x;
      select array_agg(kind), array_agg(hour), array_agg(n) into v_kind, v_hour, v_hour_links
        from (select kind, hour, sum(n) as n
                from (select 'created' as kind, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00') as hour, n from (select status, created_at, expires_at, -1::bigint as n from old_rows) d
                      union all
                      select status, date_bin('1 hour', expires_at, timestamptz '2000-01-01 00:00:00+00'), n from (select status, created_at, expires_at, -1::bigint as n from old_rows) d where status in ('issued', 'sent', 'exported')) h
               group by kind, hour having sum(n) <> 0) x;
      else 
      select array_agg(status), array_agg(n) into v_status, v_status_links
        from (select status, sum(n) as n from (select status, created_at, expires_at, 1::bigint as n from new_rows union all select status, created_at, expires_at, -1::bigint as n from old_rows) d group by status having sum(n) <> 0) x;
      select array_agg(kind), array_agg(hour), array_agg(n) into v_kind, v_hour, v_hour_links
        from (select kind, hour, sum(n) as n
                from (select 'created' as kind, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00') as hour, n from (select status, created_at, expires_at, 1::bigint as n from new_rows union all select status, created_at, expires_at, -1::bigint as n from old_rows) d
                      union all
                      select status, date_bin('1 hour', expires_at, timestamptz '2000-01-01 00:00:00+00'), n from (select status, created_at, expires_at, 1::bigint as n from new_rows union all select status, created_at, expires_at, -1::bigint as n from old_rows) d where status in ('issued', 'sent', 'exported')) h
               group by kind, hour having sum(n) <> 0) x;
      end if;
      -- A statement that changed no status, mint hour or expiry (a channel, updated_at) writes nothing.
      if v_status is null and v_kind is null then return null; end if;
      perform invitation_link_tallies_add(v_status, v_status_links, v_kind, v_hour, v_hour_links);
      return null;
    end $$;`;
