import { Migration } from '@mikro-orm/migrations';

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

/** Inserts a statement's net change, then folds the touched keys' rows no one else holds. */
const ADD = `create or replace function invitation_link_tallies_add(
    p_status text[], p_status_links bigint[], p_kind text[], p_hour timestamptz[], p_hour_links bigint[]) returns void
  language plpgsql as $$
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

/** The net change of `rows` (status, created_at, expires_at, n), by key, into the function's arrays. */
const netChange = (rows: string) => `
      select array_agg(status), array_agg(n) into v_status, v_status_links
        from (select status, sum(n) as n from (${rows}) d group by status having sum(n) <> 0) x;
      select array_agg(kind), array_agg(hour), array_agg(n) into v_kind, v_hour, v_hour_links
        from (select kind, hour, sum(n) as n
                from (select 'created' as kind, ${hour('created_at')} as hour, n from (${rows}) d
                      union all
                      select status, ${hour('expires_at')}, n from (${rows}) d where status in (${ACTIVE})) h
               group by kind, hour having sum(n) <> 0) x;`;
const ADDED = 'select status, created_at, expires_at, 1::bigint as n from new_rows';
const REMOVED = 'select status, created_at, expires_at, -1::bigint as n from old_rows';

/** Each trigger has only its own event's transition tables, so each branch names only those. */
const APPLY = `create or replace function invitation_link_tallies_apply() returns trigger language plpgsql as $$
    declare
      v_status text[];
      v_status_links bigint[];
      v_kind text[];
      v_hour timestamptz[];
      v_hour_links bigint[];
    begin
      if tg_op = 'INSERT' then ${netChange(ADDED)}
      elsif tg_op = 'DELETE' then ${netChange(REMOVED)}
      else ${netChange(`${ADDED} union all ${REMOVED}`)}
      end if;
      -- A statement that changed no status, mint hour or expiry (a channel, updated_at) writes nothing.
      if v_status is null and v_kind is null then return null; end if;
      perform invitation_link_tallies_add(v_status, v_status_links, v_kind, v_hour, v_hour_links);
      return null;
    end $$;`;

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
    this.addSql(ADD);
    this.addSql(APPLY);
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
