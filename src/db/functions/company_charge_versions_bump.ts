/**
 * Deferred constraint trigger on company_charges and company_order_lines: at commit, raises the version of the
 * companies the transaction's refreshes recorded (billing.changed_companies) and of the row's own company, each once
 * per transaction, in company id order (migration ChargeVersionsAtCommit).
 */
export const sql = String.raw`create or replace function company_charge_versions_bump() returns trigger language plpgsql as $$
  declare
    v_done text := coalesce(current_setting('billing.bumped_companies', true), '');
    v_own uuid[];
    v_todo uuid[];
  begin
    if tg_op = 'INSERT' then v_own := array[new.company_id];
    elsif tg_op = 'DELETE' then v_own := array[old.company_id];
    else v_own := array[old.company_id, new.company_id];
    end if;
    v_todo := array(
      select distinct c from (
        select nullif(x, '')::uuid as c from unnest(string_to_array(coalesce(current_setting('billing.changed_companies', true), ''), ',')) x
        union all select unnest(v_own)
      ) s
       where c is not null and strpos(v_done, c::text) = 0);
    if cardinality(v_todo) = 0 then return null; end if;
    insert into company_charge_versions (company_id, version)
    select c, 1 from unnest(v_todo) c order by c
    on conflict (company_id) do update set version = company_charge_versions.version + 1;
    perform set_config('billing.bumped_companies', v_done || array_to_string(v_todo, ',') || ',', true);
    perform set_config('billing.changed_companies', '', true);
    return null;
  end $$;`;
