import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for housekeeping's purges (activities/housekeeping.ts): each batch finds its rows by
 * expiry or age through an index instead of scanning the table. token_blocklist (expires_at) and
 * rate_limits (expire) had theirs already.
 */
export class Migration20261123223512_housekeeping_indexes extends Migration {
  override name = 'Migration20261123223512_housekeeping_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "otp_requests_created_at_index" on "otp_requests" ("created_at");`);

    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);

    this.addSql(`create index "otp_challenges_expires_at_index" on "otp_challenges" ("expires_at");`);

    this.addSql(`create index "webhook_events_receipts_index" on "webhook_events" ("provider", "outcome", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "otp_challenges_expires_at_index";`);

    this.addSql(`drop index "otp_requests_created_at_index";`);

    this.addSql(`drop index "sessions_expires_at_index";`);

    this.addSql(`drop index "webhook_events_receipts_index";`);
  }
}
