import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

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

    this.addSql(functionSql('roster_counts_apply'));
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
