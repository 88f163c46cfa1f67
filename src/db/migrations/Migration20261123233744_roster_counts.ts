import { Migration } from '@mikro-orm/migrations';

/** One upsert of the net change per company and status; `deltas` reads the transition tables of the event. */
const upsert = (deltas: string) => `
        insert into roster_counts (company_id, status, entries)
        select d.company_id, d.status, sum(d.delta)
          from (${deltas}) d
          join companies c on c.id = d.company_id
         group by d.company_id, d.status
        having sum(d.delta) <> 0
         order by d.company_id, d.status
        on conflict (company_id, status) do update set entries = roster_counts.entries + excluded.entries;`;
const ADDED = 'select company_id, status, 1 as delta from new_rows';
const REMOVED = 'select company_id, status, -1 as delta from old_rows';

/**
 * Entries per company and roster status, kept by statement-level triggers on roster_entries (one
 * upsert per statement, whatever its row count: a 500-row stage changes one counter row), so the
 * roster list answers its total without counting the company's entries on every page. A company
 * being deleted (its rows go by cascade) is skipped: its counters go with it.
 */
export class Migration20261123233744_roster_counts extends Migration {
  override name = 'Migration20261123233744_roster_counts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "roster_counts" ("company_id" uuid not null, "status" text not null, "entries" int not null default 0, primary key ("company_id", "status"));`,
    );

    this.addSql(
      `alter table "roster_counts" add constraint "roster_counts_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "roster_counts" add constraint "roster_counts_status_check" check ("status" in ('staged', 'enabled'));`);

    // Each trigger has only its own event's transition tables, so each branch names only those.
    this.addSql(`create or replace function roster_counts_apply() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${upsert(ADDED)}
        elsif tg_op = 'DELETE' then ${upsert(REMOVED)}
        else ${upsert(`${ADDED} union all ${REMOVED}`)}
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger roster_counts_insert after insert on roster_entries referencing new table as new_rows
      for each statement execute function roster_counts_apply();`);
    this.addSql(`create trigger roster_counts_update after update on roster_entries referencing old table as old_rows new table as new_rows
      for each statement execute function roster_counts_apply();`);
    this.addSql(`create trigger roster_counts_delete after delete on roster_entries referencing old table as old_rows
      for each statement execute function roster_counts_apply();`);
    this.addSql(`insert into roster_counts (company_id, status, entries)
      select company_id, status, count(*) from roster_entries group by company_id, status;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists roster_counts_insert on roster_entries;`);
    this.addSql(`drop trigger if exists roster_counts_update on roster_entries;`);
    this.addSql(`drop trigger if exists roster_counts_delete on roster_entries;`);
    this.addSql(`drop function if exists roster_counts_apply();`);
    this.addSql(`drop table if exists "roster_counts" cascade;`);
  }
}
