import { Migration } from '@mikro-orm/migrations';

/**
 * Trigram indexes for substring search by name. pg_trgm ships with PostgreSQL (contrib; embedded
 * Postgres has it) and is a trusted extension: a role with CREATE on the database (and, from
 * PostgreSQL 15, on the public schema) may create it. The indexes are built inside the migration's
 * transaction, which holds writes to users for the build (seconds at a few hundred thousand rows).
 */
export class Migration20261124061733_name_trigram_indexes extends Migration {
  override name = 'Migration20261124061733_name_trigram_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "users_name_trigram_index" on "users" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "companies_name_trigram_index" on "companies" using gin ("name" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "companies_name_trigram_index";`);
    this.addSql(`drop index "users_name_trigram_index";`);
    // The extension stays: other objects may use it by then, and it costs nothing unused.
  }
}
