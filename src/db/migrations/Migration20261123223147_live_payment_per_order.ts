import { Migration } from '@mikro-orm/migrations';

export class Migration20261123223147_live_payment_per_order extends Migration {
  override name = 'Migration20261123223147_live_payment_per_order';

  override up(): void | Promise<void> {
    // Orders that already hold several live payments (written before this rule) keep the newest live; the older ones
    // fail as superseded. Should one of their intents still succeed, settlement completes it and records a duplicate charge.
    this.addSql(`update "payments" set "status" = 'failed', "failure_reason" = 'superseded', "updated_at" = now()
      where "id" in (select "id" from (select "id", row_number() over (partition by "order_id" order by "created_at" desc, "id" desc) as "n"
        from "payments" where "status" in ('pending', 'processing')) as "live" where "n" > 1);`);
    this.addSql(`create unique index "payments_order_live_unique" on "payments" ("order_id") where status in ('pending', 'processing');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "payments_order_live_unique";`);
  }
}
