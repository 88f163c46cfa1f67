import { Migration } from '@mikro-orm/migrations';

/**
 * GET /b2b/dashboard counts a company's links minted in the last 30 days. With an index on
 * company_id alone, the statement's generic plan (prepared, from its sixth run) ANDed it with the
 * created_at range of invitation_links_created_index, walking every link of those 30 days in every
 * company (1.1 ms at 43,000 of them, issue 23's bench). An index on (company_id, created_at) answers it
 * with one range, serves the company's mint events newest first, and replaces the company_id index.
 */
export class Migration20261127085303_dashboard_mints_index extends Migration {
  override name = 'Migration20261127085303_dashboard_mints_index';

  override up(): void | Promise<void> {
    this.addSql(`drop index "invitation_links_company_id_index";`);
    this.addSql(
      `create index "invitation_links_company_created_index" on "invitation_links" ("company_id", "created_at" desc, "id" desc);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "invitation_links_company_created_index";`);
    this.addSql(`create index "invitation_links_company_id_index" on "invitation_links" ("company_id");`);
  }
}
