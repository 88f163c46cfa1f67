import { Migration } from '@mikro-orm/migrations';

/**
 * The billing read model's version rows are raised at commit, not in the statement that changed the
 * charges. company_charges_refresh locks the orders it recomputes, then raised the version row of
 * their company, and that row stayed locked until commit. A transaction that locked an order in a
 * later statement (its own UPDATE of an order the first statement's refresh had not locked) could
 * then wait for a transaction that held the order and was waiting for the version row: a deadlock
 * (test/api/billing-charges.test.ts saw one; docs/decisions/portal-reads.md).
 *
 * Now the refresh only records its companies in a transaction-local setting
 * (billing.changed_companies), and a deferred constraint trigger on company_charges and
 * company_order_lines raises them at commit, after every statement of the transaction has taken
 * its row locks, in company id order. A version still changes in the same transaction as the rows it
 * stands for (a repeatable-read reader sees both or neither), and only when a charge or line row of
 * the transaction changed. The trigger's first firing raises every recorded company; the rest find
 * them in billing.bumped_companies and return. A row changed outside a refresh (an order's cascade
 * delete) raises its own company. A table with raises pending cannot be altered in the same
 * transaction: a migration that refreshes and then alters company_charges or company_order_lines sets
 * these constraints immediate first.
 */
/** The version upsert at the end of company_charges_refresh (migration MoneyUnits), whitespace aside. */
const UPSERT_PATTERN =
  'insert into company_charge_versions \\(company_id, version\\)\\s+select c, 1 from unnest\\(v_companies\\) c order by c\\s+' +
  'on conflict \\(company_id\\) do update set version = company_charge_versions\\.version \\+ 1;';
const UPSERT = `insert into company_charge_versions (company_id, version)
    select c, 1 from unnest(v_companies) c order by c
    on conflict (company_id) do update set version = company_charge_versions.version + 1;`;
const RECORD_CALL = 'perform company_charge_versions_record(v_companies);';

/**
 * company_charges_refresh rewritten from its current definition with only its version upsert replaced
 * by the recording, so whatever other migrations change in it holds (as ErasedSeatsStayDrawn does).
 */
const REFRESH = `do $$
    declare definition text := pg_get_functiondef('company_charges_refresh(uuid[])'::regprocedure);
    begin
      if definition !~ '${UPSERT_PATTERN}' then
        raise exception 'company_charges_refresh no longer ends with the version upsert this migration replaces';
      end if;
      execute regexp_replace(definition, '${UPSERT_PATTERN}', '${RECORD_CALL}');
    end $$;`;

/** The refresh as it was: the version raised in the refresh itself. */
const REFRESH_BEFORE = `do $$
    declare definition text := pg_get_functiondef('company_charges_refresh(uuid[])'::regprocedure);
    begin
      execute replace(definition, '${RECORD_CALL}', '${UPSERT}');
    end $$;`;

/** Adds companies to the transaction's billing.changed_companies (comma-separated ids, each once). */
const RECORD = `create or replace function company_charge_versions_record(p_companies uuid[]) returns void language plpgsql as $$
  declare
    v_set text := coalesce(current_setting('billing.changed_companies', true), '');
    v_company uuid;
  begin
    foreach v_company in array coalesce(p_companies, array[]::uuid[]) loop
      if strpos(v_set, v_company::text) = 0 then v_set := v_set || v_company::text || ','; end if;
    end loop;
    perform set_config('billing.changed_companies', v_set, true);
  end $$;`;

/** Deferred: at commit, raises the recorded companies and the row's own, each once per transaction, in id order. */
const BUMP = `create or replace function company_charge_versions_bump() returns trigger language plpgsql as $$
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

const TABLES = ['company_charges', 'company_order_lines'];

export class Migration20261127055000_charge_versions_at_commit extends Migration {
  override name = 'Migration20261127055000_charge_versions_at_commit';

  override up(): void | Promise<void> {
    this.addSql(RECORD);
    this.addSql(BUMP);
    this.addSql(REFRESH);
    for (const table of TABLES) {
      this.addSql(`create constraint trigger ${table}_version_at_commit after insert or update or delete on ${table}
        deferrable initially deferred for each row execute function company_charge_versions_bump();`);
    }
  }

  override down(): void | Promise<void> {
    // A refresh earlier in this transaction (a later migration's down) left raises pending, and a table with
    // pending trigger events cannot be altered: fire them now.
    this.addSql(`set constraints ${TABLES.map((table) => `${table}_version_at_commit`).join(', ')} immediate;`);
    for (const table of TABLES) this.addSql(`drop trigger if exists ${table}_version_at_commit on ${table};`);
    this.addSql(REFRESH_BEFORE);
    this.addSql(`drop function if exists company_charge_versions_bump();`);
    this.addSql(`drop function if exists company_charge_versions_record(uuid[]);`);
  }
}
