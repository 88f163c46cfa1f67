import { Migration } from '@mikro-orm/migrations';

/**
 * A pending signal may carry the run to start for it (signal-with-start): a store order's requeue starts
 * a finished order's run again even when Temporal was away at the request (src/workflow-signals).
 */
export class Migration20261129033453_signal_starts extends Migration {
  override name = 'Migration20261129033453_signal_starts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "workflow_signals" add "start" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "workflow_signals" drop column "start";`);
  }
}
