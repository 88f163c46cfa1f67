import { Migration } from '@mikro-orm/migrations';

/**
 * The admin quote queue (GET /admin/quotes) is ordered by company name A to Z, case folded. It joined
 * every queue tip to its company and sorted them all per request; with this index the page walks
 * companies in that order and stops once it is full (src/quotes/repository.ts queueTips).
 */
export class Migration20261127080832_quote_queue_order extends Migration {
  override name = 'Migration20261127080832_quote_queue_order';

  override up(): void | Promise<void> {
    this.addSql(`create index "companies_name_order_index" on "companies" (lower("name"), "name", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "companies_name_order_index";`);
  }
}
