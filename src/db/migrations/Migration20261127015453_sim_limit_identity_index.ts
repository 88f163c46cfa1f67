import { Migration } from '@mikro-orm/migrations';

/** SIM limits count per verified identity (src/activations/sim-limit.ts): its live activations, on any account, by the id number's keyed hash. */
export class Migration20261127015453_sim_limit_identity_index extends Migration {
  override name = 'Migration20261127015453_sim_limit_identity_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "activations_live_identity_index" on "activations" ("id_number_hash") where "id_number_hash" is not null and "deleted_at" is null and "status" not in ('failed', 'cancelled');`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "activations_live_identity_index";`);
  }
}
