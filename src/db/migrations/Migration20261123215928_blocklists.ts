import { Migration } from '@mikro-orm/migrations';
import { functionSql, supersededFunctionSql } from '../functions';

/**
 * AUTH_BLOCKLISTED: users (`blocklisted_at`) and devices (`device_blocklist`, keyed hash of the
 * X-Device-Id; sessions remember the device they signed in from). Deactivating a user revokes
 * their live sessions in the same statement's transaction, whoever deactivates (API, SQL, tools),
 * so nothing is left live if the account comes back. Device blocklist changes NOTIFY
 * `auth_changed` like the other auth tables, so cached sessions are dropped at once.
 */
export class Migration20261123215928_blocklists extends Migration {
  override name = 'Migration20261123215928_blocklists';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "device_blocklist" ("device_hash" varchar(64) not null, "created_by_id" uuid null, "created_at" timestamptz not null, primary key ("device_hash"));`,
    );
    this.addSql(`alter table "users" add "blocklisted_at" timestamptz null;`);
    this.addSql(`alter table "sessions" add "device_hash" varchar(64) null;`);
    this.addSql(`create index "sessions_device_hash_index" on "sessions" ("device_hash");`);
    this.addSql(
      `alter table "device_blocklist" add constraint "device_blocklist_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(functionSql('revoke_sessions_of_deactivated_user'));
    this.addSql(
      `create trigger users_deactivated_revoke_sessions after update of is_active on users for each row
         when (old.is_active and not new.is_active) execute function revoke_sessions_of_deactivated_user();`,
    );

    this.addSql(functionSql('notify_auth_changed'));
    this.addSql(
      `create trigger device_blocklist_auth_changed after insert or delete on device_blocklist for each row execute function notify_auth_changed();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists device_blocklist_auth_changed on device_blocklist;`);
    this.addSql(supersededFunctionSql('notify_auth_changed.v1'));
    this.addSql(`drop trigger if exists users_deactivated_revoke_sessions on users;`);
    this.addSql(`drop function if exists revoke_sessions_of_deactivated_user();`);
    this.addSql(`drop table if exists "device_blocklist" cascade;`);
    this.addSql(`drop index "sessions_device_hash_index";`);
    this.addSql(`alter table "sessions" drop column "device_hash";`);
    this.addSql(`alter table "users" drop column "blocklisted_at";`);
  }
}
