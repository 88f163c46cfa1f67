import { Migration } from '@mikro-orm/migrations';
import { functionSql } from '../functions';

/**
 * Pending workflow starts (src/workflow-starts): one row per run the API owes, written with the
 * business rows, started by the API at once or by the worker's start relay once Temporal answers.
 * Each insert, and each change of a row's due time (a request's failed attempt makes it due at once),
 * NOTIFYs `workflow_starts`, so a relay wakes at once. Replaces the activation-recovery
 * schedule and its marker column: `pending` activations whose start nobody saw become pending starts
 * (their cancel deadline still counts from their creation; the relay reads whether the order was paid
 * meanwhile when it starts them).
 */
export class Migration20261127015453_workflow_starts extends Migration {
  override name = 'Migration20261127015453_workflow_starts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "workflow_starts" ("id" bigserial primary key, "kind" varchar(40) not null, "workflow_id" varchar(255) not null, "args" jsonb not null, "created_at" timestamptz not null default now(), "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "last_error" varchar(500) null, "started_at" timestamptz null);`,
    );
    this.addSql(`create index "workflow_starts_pending_index" on "workflow_starts" ("next_attempt_at") where "started_at" is null;`);
    this.addSql(`alter table "workflow_starts" add constraint "workflow_starts_workflow_id_unique" unique ("workflow_id");`);

    this.addSql(functionSql('notify_workflow_starts'));
    this.addSql(
      `create trigger workflow_starts_notify after insert or update of next_attempt_at on workflow_starts for each row execute function notify_workflow_starts();`,
    );

    this.addSql(`insert into "workflow_starts" ("kind", "workflow_id", "args", "created_at", "next_attempt_at")
      select 'activation', 'activation:' || a.id,
             jsonb_strip_nulls(jsonb_build_object('activationId', a.id, 'userId', a.user_id, 'orderId', a.order_id,
                                                  'simType', a.sim_type, 'companyId', o.company_id)),
             a.created_at, now()
        from "activations" a join "orders" o on o.id = a.order_id
       where a.status = 'pending' and a.workflow_started_at is null and a.deleted_at is null
      on conflict ("workflow_id") do nothing;`);
    this.addSql(`drop index "activations_unstarted_index";`);
    this.addSql(`alter table "activations" drop column "workflow_started_at";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "workflow_starts" cascade;`);
    this.addSql(`drop function if exists notify_workflow_starts();`);

    this.addSql(`alter table "activations" add "workflow_started_at" timestamptz(6) null;`);
    this.addSql(
      `create index "activations_unstarted_index" on "activations" ("created_at") where "status" = 'pending' and "workflow_started_at" is null;`,
    );
  }
}
