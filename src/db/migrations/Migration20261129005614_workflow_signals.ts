import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * Pending signals (src/workflow-signals): one row per signal the API owes a run, written in the
 * transaction that decided it and delivered by the API at once or by the worker's signal relay once
 * Temporal answers. Each insert, each change of a row's due time, and the start of a run with signals
 * waiting NOTIFYs `workflow_signals`.
 * Activations count their verifications and keep the current one's start time and app code, so a
 * repeated verify-identity joins the verification it started (src/activations/identity.ts).
 */
export class Migration20261129005614_workflow_signals extends Migration {
  override name = 'Migration20261129005614_workflow_signals';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "workflow_signals" ("id" bigserial primary key, "workflow_id" varchar(255) not null, "signal" varchar(80) not null, "args" jsonb not null, "created_at" timestamptz not null default now(), "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "last_error" varchar(500) null, "delivered_at" timestamptz null, "outcome" varchar(20) null);`,
    );
    this.addSql(`create index "workflow_signals_pending_index" on "workflow_signals" ("workflow_id", "id") where "delivered_at" is null;`);
    this.addSql(functionSql('notify_workflow_signals'));
    this.addSql(
      `create trigger workflow_signals_notify after insert or update of next_attempt_at on workflow_signals for each row execute function notify_workflow_signals();`,
    );
    // A run's signals wait for its pending start: its start wakes the signal relay.
    this.addSql(functionSql('notify_started_run_signals'));
    this.addSql(
      `create trigger workflow_starts_wake_signals after update of started_at on workflow_starts for each row when (new.started_at is not null and old.started_at is null) execute function notify_started_run_signals();`,
    );

    this.addSql(
      `alter table "activations" add "identity_attempts" int not null default 0, add "identity_started_at" timestamptz null, add "identity_code_encrypted" text null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "workflow_signals" cascade;`);
    this.addSql(`drop trigger if exists workflow_starts_wake_signals on workflow_starts;`);
    this.addSql(`drop function if exists notify_started_run_signals();`);
    this.addSql(`drop function if exists notify_workflow_signals();`);
    this.addSql(
      `alter table "activations" drop column "identity_attempts", drop column "identity_started_at", drop column "identity_code_encrypted";`,
    );
  }
}
