import { Migration } from '@mikro-orm/migrations';
import { supersededFunctionSql } from '../functions';

/**
 * Session-cache invalidation: any change to a user, a session or the token
 * blocklist NOTIFYs `auth_changed`, so every API instance evicts at once, even
 * for changes made outside the API. The rate-limit counters become UNLOGGED:
 * losing them in a crash is harmless and their writes get cheaper.
 */
export class Migration20261122031500_auth_changed_notify extends Migration {
  override up(): void {
    this.addSql(supersededFunctionSql('notify_auth_changed.v1'));
    this.addSql(`create trigger users_auth_changed after update or delete on users for each row execute function notify_auth_changed();`);
    this.addSql(
      `create trigger sessions_auth_changed after update or delete on sessions for each row execute function notify_auth_changed();`,
    );
    this.addSql(
      `create trigger token_blocklist_auth_changed after insert on token_blocklist for each row execute function notify_auth_changed();`,
    );
    this.addSql(`alter table rate_limits set unlogged;`);
  }

  override down(): void {
    this.addSql(`alter table rate_limits set logged;`);
    this.addSql(`drop trigger if exists token_blocklist_auth_changed on token_blocklist;`);
    this.addSql(`drop trigger if exists sessions_auth_changed on sessions;`);
    this.addSql(`drop trigger if exists users_auth_changed on users;`);
    this.addSql(`drop function if exists notify_auth_changed();`);
  }
}
