/**
 * Adds companies to the transaction's billing.changed_companies (comma-separated ids, each once), for
 * company_charge_versions_bump to raise at commit.
 */
export const sql = String.raw`create or replace function company_charge_versions_record(p_companies uuid[]) returns void language plpgsql as $$
  declare
    v_set text := coalesce(current_setting('billing.changed_companies', true), '');
    v_company uuid;
  begin
    foreach v_company in array coalesce(p_companies, array[]::uuid[]) loop
      if strpos(v_set, v_company::text) = 0 then v_set := v_set || v_company::text || ','; end if;
    end loop;
    perform set_config('billing.changed_companies', v_set, true);
  end $$;`;
