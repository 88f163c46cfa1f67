/**
 * Copies a roster entry's newest invitation link (by created_at desc, id desc, the order of
 * invitation_links_roster_latest_index) onto the entry; no link: nulls.
 */
export const sql = String.raw`create or replace function roster_entries_copy_latest_link(entry uuid) returns void language sql as $$
      update roster_entries r
         set link_status = l.status, link_expires_at = l.expires_at, link_created_at = l.created_at
        from (select 1) one
        left join lateral (select i.status, i.expires_at, i.created_at from invitation_links i
                            where i.roster_entry_id = entry order by i.created_at desc, i.id desc limit 1) l on true
       where r.id = entry
         and (r.link_status, r.link_expires_at, r.link_created_at) is distinct from (l.status, l.expires_at, l.created_at);
    $$;`;
