import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * GET /admin/links counted every link on each request: six counts for its tiles and one for its
 * total (about 40 ms of PostgreSQL's time at 100,000 links; issue 23). Now statement-level triggers
 * on invitation_links keep tallies (entities InvitationLinkStatusCount and InvitationLinkHourCount):
 * links per stored status, and per UTC hour the links minted in it and, per active status, the links
 * expiring in it. Lazy expiry and the 24-hour window split counts at now; the hours wholly on one
 * side come from the tallies, and only the links of the hour that holds now are counted
 * (src/admin-links/reads.ts).
 *
 * Writers never wait for each other on a counter row: a statement inserts its net change as new
 * rows, then folds the rows of the keys it touched that no other transaction holds (`for update
 * skip locked`: a row is folded by one transaction only, and a locked one is left for the next
 * statement), so a key has a few rows at most. It folds only in read committed (elsewhere a row
 * folded by another transaction since the snapshot is a serialization error; the app writes links
 * in read committed).
 */
const ACTIVE = `'issued', 'sent', 'exported'`;
const STATUSES = `'issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'`;
const hour = (column: string) => `date_bin('1 hour', ${column}, timestamptz '2000-01-01 00:00:00+00')`;

const TRIGGERS = [
  ['insert', 'new table as new_rows'],
  ['update', 'old table as old_rows new table as new_rows'],
  ['delete', 'old table as old_rows'],
] as const;

export class Migration20261127060000_admin_link_tallies extends Migration {
  override name = 'Migration20261127060000_admin_link_tallies';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "invitation_link_status_counts" ("id" bigserial primary key, "status" text not null, "links" bigint not null);`,
    );
    this.addSql(`create index "invitation_link_status_counts_status_index" on "invitation_link_status_counts" ("status");`);
    this.addSql(
      `alter table "invitation_link_status_counts" add constraint "invitation_link_status_counts_status_check" check ("status" in (${STATUSES}));`,
    );
    this.addSql(
      `create table "invitation_link_hour_counts" ("id" bigserial primary key, "kind" varchar(20) not null, "hour" timestamptz not null, "links" bigint not null);`,
    );
    this.addSql(`create index "invitation_link_hour_counts_kind_hour_index" on "invitation_link_hour_counts" ("kind", "hour");`);

    // The links there are now, then the triggers (one migration, one transaction: no write falls between).
    this.addSql(`insert into invitation_link_status_counts (status, links) select status, count(*) from invitation_links group by status;`);
    this.addSql(`insert into invitation_link_hour_counts (kind, hour, links)
      select 'created', ${hour('created_at')}, count(*) from invitation_links group by 2
      union all
      select status, ${hour('expires_at')}, count(*) from invitation_links where status in (${ACTIVE}) group by 1, 2;`);
    this.addSql(functionSql('invitation_link_tallies_add'));
    this.addSql(functionSql('invitation_link_tallies_apply'));
    for (const [event, transitions] of TRIGGERS) {
      this.addSql(`create trigger invitation_link_tallies_${event} after ${event} on invitation_links referencing ${transitions}
        for each statement execute function invitation_link_tallies_apply();`);
    }
  }

  override down(): void | Promise<void> {
    for (const [event] of TRIGGERS) this.addSql(`drop trigger if exists invitation_link_tallies_${event} on invitation_links;`);
    this.addSql(`drop function if exists invitation_link_tallies_apply();`);
    this.addSql(`drop function if exists invitation_link_tallies_add(text[], bigint[], text[], timestamptz[], bigint[]);`);
    this.addSql(`drop table if exists "invitation_link_hour_counts" cascade;`);
    this.addSql(`drop table if exists "invitation_link_status_counts" cascade;`);
  }
}
