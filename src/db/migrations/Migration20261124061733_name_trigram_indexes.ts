import { Migration } from '@mikro-orm/migrations';

/**
 * Trigram indexes for substring search by name. pg_trgm ships with PostgreSQL (contrib; embedded
 * Postgres has it) and is a trusted extension, so the database owner may create it.
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
  }
}
