/**
 * Data side of the GET /activations/history benchmark (bench/history.ts has the
 * orchestration and the budgets; history/bulk-load.ts grows the table).
 *
 * Seeding uses set operations only (generate_series, INSERT ... SELECT), in
 * batches of BATCH_ROWS. Every activation gets its own order and order item, as
 * the create route writes them; created over the past year, statuses mixed, a
 * few soft-deleted, serials unique.
 *
 * - The first, small phase is inserted with every key, index and foreign key of
 *   the migrations live, so the generator is checked row by row by the real
 *   schema.
 * - Growing the table to 1,000,000 rows that way takes minutes on 2 cores (per
 *   row: 6 index insertions and 5 foreign-key checks on activations alone), so
 *   it loads the way pg_restore does (history/bulk-load.ts).
 *
 * Rows `1..smallRows` (the first phase) hold the benchmarked user's activations
 * (every `benchEvery`-th row, interleaved with other users' rows in the heap);
 * later rows belong to the other seeded users, so growing the table leaves the
 * benchmarked user's own rows exactly as they were.
 */
import type { PoolClient } from 'pg';
import { DEMO } from '../../src/catalog/demo-seed';

/** Users the seeded activations are spread across (besides the signed-up bench user). */
export const SEEDED_USERS = 10_000;
const BATCH_ROWS = 50_000;

const userId = (expr: string) => `md5('bench-user-' || (${expr}))::uuid`;

export async function seedUsers(db: PoolClient, count = SEEDED_USERS): Promise<void> {
  await db.query(
    `insert into users (id, name, app_role, identity_type, is_active, created_at, updated_at)
     select ${userId('u')}, 'Seeded user ' || u, 'end_user', 'citizen', true,
            now() - interval '400 days', now() - interval '400 days'
       from generate_series(1, $1::int) u`,
    [count],
  );
}

/**
 * One batch: activations `from..to` (inclusive) with their orders and order
 * items, created over the past year, statuses mixed (about 60% activated, 10%
 * pending, 10% in progress, 15% failed, 5% cancelled), 30% eSIM where the
 * operator offers it, about 1% soft-deleted. Serials are unique by row number:
 * 19-digit ICCIDs, or LPA activation codes for eSIMs.
 */
const SEED_BATCH = `
with spec as materialized (
  select n,
         md5('bench-order-' || n)::uuid as order_id,
         md5('bench-item-' || n)::uuid as item_id,
         case when n <= $3::int and n % $4::int = 0 then $5::uuid
              else ${userId('1 + floor(random() * $6::int)::int')} end as user_id,
         random() as r_status, random() as r_sim, random() as r_deleted,
         date_trunc('milliseconds', now() - random() * interval '365 days') as created_at
    from generate_series($1::int, $2::int) n
), pkg as (
  select id, operator_id, price_halalas, (row_number() over (order by id) - 1)::int as k, count(*) over ()::int as total
    from packages
), rows as materialized (
  select s.*, p.id as package_id, p.operator_id, p.price_halalas,
         case when s.r_status < 0.60 then 'activated' when s.r_status < 0.70 then 'pending'
              when s.r_status < 0.80 then 'in_progress' when s.r_status < 0.95 then 'failed' else 'cancelled' end as status,
         case when p.operator_id = '${DEMO.operators.mock}' and s.r_sim < 0.30 then 'esim' else 'physical' end as sim_type,
         'BENCH-' || lpad(s.n::text, 10, '0') as matching_id
    from spec s join pkg p on p.k = s.n % p.total
), serials as materialized (
  select r.*,
         case when r.sim_type = 'esim' then 'LPA:1$smdp.mock.example$' || r.matching_id
              else '8996600' || lpad(r.n::text, 12, '0') end as serial
    from rows r
), o as (
  insert into orders (id, user_id, status, total_halalas, currency, created_at, updated_at)
  select order_id, user_id,
         case status when 'activated' then 'completed' when 'failed' then 'cancelled' when 'cancelled' then 'cancelled' else 'paid' end,
         price_halalas, 'SAR', created_at, created_at
    from serials
), i as (
  insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas)
  select item_id, order_id, package_id, serial, 1, price_halalas from serials
)
insert into activations (order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, esim_profile, status,
                         identity_status, activated_at, failed_reason, deletion_requested_at, deleted_at,
                         estimated_activation_seconds, created_at, updated_at)
select order_id, item_id, user_id, operator_id, package_id, serial, sim_type,
       case when sim_type = 'esim' and status = 'activated'
            then jsonb_build_object('smdpAddress', 'smdp.mock.example', 'matchingId', matching_id, 'activationCodeRaw', serial,
                                    'qrUrl', '') end,
       status,
       case status when 'activated' then 'completed' when 'in_progress' then 'completed' when 'failed' then 'rejected'
                   when 'cancelled' then 'expired' else 'waiting' end,
       case when status = 'activated' then created_at + interval '2 minutes' end,
       case when status = 'failed' then 'identity_rejected' end,
       case when r_deleted < 0.01 then created_at + interval '1 day' end,
       case when r_deleted < 0.01 then created_at + interval '2 days' end,
       case when status in ('pending', 'in_progress') then 120 end,
       created_at,
       created_at + interval '2 minutes'
  from serials`;

export interface SeedRange {
  /** First and last row number (inclusive). */
  from: number;
  to: number;
  /** The signed-up user whose history is measured. */
  benchUserId: string;
  /** Rows 1..smallRows hold the bench user's activations... */
  smallRows: number;
  /** ...every `benchEvery`-th of them. */
  benchEvery: number;
}

/**
 * Inserts activations `from..to` (with orders and order items) in batches,
 * the batches shared out over the given connections; returns the rows inserted.
 */
export async function seedActivations(dbs: PoolClient[], range: SeedRange, onBatch?: (done: number) => void): Promise<number> {
  const batches: Array<[number, number]> = [];
  for (let start = range.from; start <= range.to; start += BATCH_ROWS) batches.push([start, Math.min(range.to, start + BATCH_ROWS - 1)]);
  let inserted = 0;
  await Promise.all(
    dbs.map(async (db) => {
      for (let b = batches.shift(); b; b = batches.shift()) {
        const res = await db.query(SEED_BATCH, [b[0], b[1], range.smallRows, range.benchEvery, range.benchUserId, SEEDED_USERS]);
        inserted += res.rowCount ?? 0;
        onBatch?.(inserted);
      }
    }),
  );
  return inserted;
}

/**
 * Leaves nothing for autovacuum to do during the measurement (statistics,
 * visibility map, hint bits) and nothing dirty for a checkpoint to write.
 */
export async function settle(db: PoolClient): Promise<void> {
  await db.query('vacuum (analyze) users, orders, order_items, activations');
  await db.query('checkpoint');
}

export interface TableCounts {
  activations: number;
  liveActivations: number;
  benchUserLive: number;
  users: number;
  orders: number;
}

export async function counts(db: PoolClient, benchUserId: string): Promise<TableCounts> {
  const { rows } = await db.query<Record<keyof TableCounts, string>>(
    `select (select count(*) from activations) as activations,
            (select count(*) from activations where deleted_at is null) as "liveActivations",
            (select count(*) from activations where user_id = $1 and deleted_at is null) as "benchUserLive",
            (select count(*) from users) as users,
            (select count(*) from orders) as orders`,
    [benchUserId],
  );
  const row = rows[0];
  return {
    activations: Number(row.activations),
    liveActivations: Number(row.liveActivations),
    benchUserLive: Number(row.benchUserLive),
    users: Number(row.users),
    orders: Number(row.orders),
  };
}
