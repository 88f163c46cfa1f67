import { Migration } from '@mikro-orm/migrations';

/**
 * A store order's Idempotency-Key (optional header of POST /store/orders), unique per buyer: a client that
 * lost the answer repeats the request and gets the one order (src/store/orders.ts).
 */
export class Migration20261129050000_store_order_create_keys extends Migration {
  override name = 'Migration20261129050000_store_order_create_keys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "store_orders" add "create_key" varchar(128) null;`);
    this.addSql(
      `create unique index "store_orders_create_key_unique" on "store_orders" ("user_id", "create_key") where create_key is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "store_orders_create_key_unique";`);
    this.addSql(`alter table "store_orders" drop column "create_key";`);
  }
}
