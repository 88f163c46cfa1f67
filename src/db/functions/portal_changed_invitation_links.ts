/**
 * Statement-level NOTIFY `portal_changed` of the distinct tags of the invitation_links rows a statement changed, so
 * each API process forgets the reads kept from them (src/db/read-cache.ts, docs/decisions/portal-reads.md); each branch
 * reads only the transition tables its event has, and a statement with no tag sends nothing.
 */
export const sql = String.raw`create or replace function portal_changed_invitation_links() returns trigger language plpgsql as $$
        declare
          v_tags text[];
          v_tag text;
        begin
          if tg_op = 'INSERT' then 
          v_tags := array(select distinct t from (select unnest(array['company:' || r.company_id, 'links']) from new_rows r) x(t) where t is not null);
          elsif tg_op = 'DELETE' then 
          v_tags := array(select distinct t from (select unnest(array['company:' || r.company_id, 'links']) from old_rows r) x(t) where t is not null);
          else 
          v_tags := array(select distinct t from (select unnest(array['company:' || r.company_id, 'links']) from (select * from new_rows union all select * from old_rows) r) x(t) where t is not null);
          end if;
          if cardinality(v_tags) = 0 then return null; end if;
          foreach v_tag in array v_tags loop perform pg_notify('portal_changed', v_tag); end loop;
          return null;
        end $$;`;
