import { Migration } from '@mikro-orm/migrations';

/**
 * reconciliation_records: support's list of money to act on (GET /admin/reconciliation-records). The
 * records written before it lived only in webhook_events (mismatches, duplicate charges) and in warnings
 * (activations that failed after payment): they are copied in here, so the list starts complete.
 */
export class Migration20261123223651_reconciliation_records extends Migration {
  override name = 'Migration20261123223651_reconciliation_records';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "reconciliation_records" ("id" uuid not null default gen_random_uuid(), "code" varchar(64) not null, "dedupe_key" varchar(300) not null, "payment_id" uuid null, "order_id" uuid null, "activation_id" uuid null, "reason" text null, "detail" jsonb not null, "created_at" timestamptz not null, "resolved_at" timestamptz null, "resolved_by_id" uuid null, "resolution_note" text null, primary key ("id"));`,
    );
    this.addSql(`alter table "reconciliation_records" add constraint "reconciliation_records_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "reconciliation_records_payment_id_index" on "reconciliation_records" ("payment_id");`);
    this.addSql(
      `create index "reconciliation_records_open_index" on "reconciliation_records" ("created_at" desc, "id" desc) where "resolved_at" is null;`,
    );

    this.addSql(
      `alter table "reconciliation_records" add constraint "reconciliation_records_resolved_by_id_foreign" foreign key ("resolved_by_id") references "users" ("id") on delete set null;`,
    );

    const firstActivation = `(select a.id from activations a where a.order_id = p.order_id order by a.created_at limit 1)`;
    this.addSql(`insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
      select 'PAYMENT_PROVIDER_AMOUNT_MISMATCH', 'mismatch:' || w.event_id, w.payment_id, p.order_id, ${firstActivation},
             (select string_agg(distinct m->>'rule', ',') from jsonb_array_elements(coalesce(w.detail->'mismatches', '[]'::jsonb)) m),
             coalesce(w.detail, '{}'::jsonb), w.created_at
        from webhook_events w left join payments p on p.id = w.payment_id
       where w.provider = 'card_processor' and w.outcome = 'mismatch'
      on conflict (dedupe_key) do nothing;`);
    this.addSql(`insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
      select 'PAYMENT_DUPLICATE_CHARGE', 'duplicate:' || p.id, p.id, p.order_id, ${firstActivation}, 'ORDER_ALREADY_PAID',
             jsonb_build_object('paidByPaymentId', w.detail->>'paidByPaymentId', 'amount', p.amount::text, 'currency', p.currency,
                                'gatewayTransactionId', p.gateway_transaction_id),
             w.created_at
        from webhook_events w join payments p on p.id = w.payment_id
       where w.provider = 'card_processor' and w.outcome = 'duplicate_charge'
      on conflict (dedupe_key) do nothing;`);
    // Money taken for an activation that ended, and payments that succeeded after their order was cancelled.
    const refundDetail = `jsonb_build_object('amount', p.amount::text, 'currency', p.currency, 'provider', p.provider, 'gatewayTransactionId', p.gateway_transaction_id)`;
    this.addSql(`insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
      select 'PAYMENT_REFUND_REQUIRED', 'refund:' || p.id, p.id, o.id, a.id, coalesce(a.failed_reason, 'activation ' || a.status), ${refundDetail}, now()
        from activations a join orders o on o.id = a.order_id
        join lateral (select * from payments x where x.order_id = o.id and x.status = 'completed' order by x.paid_at, x.id limit 1) p on true
       where a.status in ('failed', 'cancelled') and o.status in ('paid', 'completed')
      on conflict (dedupe_key) do nothing;`);
    this.addSql(`insert into reconciliation_records (code, dedupe_key, payment_id, order_id, activation_id, reason, detail, created_at)
      select 'PAYMENT_REFUND_REQUIRED', 'refund:' || p.id, p.id, p.order_id, ${firstActivation}, 'PAID_AFTER_ORDER_CANCELLED', ${refundDetail}, now()
        from payments p join orders o on o.id = p.order_id
       where p.status = 'completed' and o.status = 'cancelled'
      on conflict (dedupe_key) do nothing;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "reconciliation_records" cascade;`);
  }
}
