/**
 * Data and query-plan side of the GET /activations/history benchmark (the
 * orchestration, the servers and the budgets are in run.ts).
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
 *   it loads the way pg_restore does: drop the keys, indexes and foreign keys of
 *   orders, order_items and activations, insert on two connections, recreate them
 *   (unique keys and foreign keys are checked by PostgreSQL over the whole
 *   table), and compare the schema with what it was before: it must read back
 *   identically.
 *
 * Rows `1..smallRows` (the first phase) hold the benchmarked user's activations
 * (every `benchEvery`-th row, interleaved with other users' rows in the heap);
 * later rows belong to the other seeded users, so growing the table leaves the
 * benchmarked user's own rows exactly as they were.
 */
import type { PoolClient } from 'pg';
import { DEMO } from '../src/catalog/demo-seed';

/** Users the seeded activations are spread across (besides the signed-up bench user). */
export const SEEDED_USERS = 10_000;
export const HISTORY_INDEX = 'activations_user_history_index';
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
  select id, operator_id, price_sar, (row_number() over (order by id) - 1)::int as k, count(*) over ()::int as total
    from packages
), rows as materialized (
  select s.*, p.id as package_id, p.operator_id, p.price_sar,
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
  insert into orders (id, user_id, status, total_amount_sar, currency, created_at, updated_at)
  select order_id, user_id,
         case status when 'activated' then 'completed' when 'failed' then 'cancelled' when 'cancelled' then 'cancelled' else 'paid' end,
         price_sar, 'SAR', created_at, created_at
    from serials
), i as (
  insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_sar)
  select item_id, order_id, package_id, serial, 1, price_sar from serials
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

// ---------------------------------------------------------------------------
// Bulk load (the way pg_restore does it)
// ---------------------------------------------------------------------------

export const BULK_TABLES = ['orders', 'order_items', 'activations'] as const;

interface SchemaObject {
  /** `table.name`, for messages. */
  key: string;
  drop: string;
  create: string;
  stage: 'key' | 'index' | 'foreign-key';
}

export interface BulkLoadSchema {
  objects: SchemaObject[];
  fingerprint: string;
}

/**
 * Every index and constraint that costs time per inserted row on the bulk-loaded
 * tables, with the statements that drop and recreate it: primary keys and unique
 * constraints, plain and partial indexes, and foreign keys from or to these
 * tables. Check and not-null constraints stay (they cost next to nothing).
 */
export async function bulkLoadSchema(db: PoolClient): Promise<BulkLoadSchema> {
  const tables = [...BULK_TABLES];
  const constraints = await db.query<{ tbl: string; name: string; type: string; def: string }>(
    `select c.conrelid::regclass::text as tbl, c.conname as name, c.contype as type, pg_get_constraintdef(c.oid) as def
       from pg_constraint c
      where (c.contype in ('p', 'u') and c.conrelid = any($1::regclass[]))
         or (c.contype = 'f' and (c.conrelid = any($1::regclass[]) or c.confrelid = any($1::regclass[])))
      order by 1, 2`,
    [tables],
  );
  const indexes = await db.query<{ tbl: string; name: string; def: string }>(
    `select i.indrelid::regclass::text as tbl, x.relname as name, pg_get_indexdef(i.indexrelid) as def
       from pg_index i join pg_class x on x.oid = i.indexrelid
      where i.indrelid = any($1::regclass[])
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.contype in ('p', 'u', 'x'))
      order by 1, 2`,
    [tables],
  );
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const objects: SchemaObject[] = [
    ...constraints.rows.map((c): SchemaObject => ({
      key: `${c.tbl}.${c.name}`,
      drop: `alter table ${c.tbl} drop constraint ${q(c.name)}`,
      create: `alter table ${c.tbl} add constraint ${q(c.name)} ${c.def}`,
      stage: c.type === 'f' ? 'foreign-key' : 'key',
    })),
    ...indexes.rows.map((i): SchemaObject => ({
      key: `${i.tbl}.${i.name}`,
      drop: `drop index ${q(i.name)}`,
      create: i.def,
      stage: 'index',
    })),
  ];
  return { objects, fingerprint: objects.map((o) => `${o.key}: ${o.create}`).join('\n') };
}

/** Foreign keys first (they depend on the keys), then keys and indexes. */
export async function dropForBulkLoad(db: PoolClient, schema: BulkLoadSchema): Promise<void> {
  const order = ['foreign-key', 'index', 'key'] as const;
  for (const stage of order) {
    for (const o of schema.objects.filter((x) => x.stage === stage)) await db.query(o.drop);
  }
}

/**
 * Recreates what `dropForBulkLoad` dropped: keys (which check uniqueness), then
 * indexes, then foreign keys (each validated by PostgreSQL in one set-based
 * query), spread over the given connections; then checks that the schema reads
 * back exactly as before.
 */
export async function rebuildAfterBulkLoad(dbs: PoolClient[], schema: BulkLoadSchema): Promise<void> {
  for (const stage of ['key', 'index', 'foreign-key'] as const) {
    const queue = schema.objects.filter((o) => o.stage === stage);
    await Promise.all(
      dbs.map(async (db) => {
        for (let o = queue.shift(); o; o = queue.shift()) await db.query(o.create);
      }),
    );
  }
  const after = await bulkLoadSchema(dbs[0]);
  if (after.fingerprint !== schema.fingerprint) {
    throw new Error(`the schema differs after the bulk load:\nbefore:\n${schema.fingerprint}\nafter:\n${after.fingerprint}`);
  }
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

// ---------------------------------------------------------------------------
// EXPLAIN
// ---------------------------------------------------------------------------

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface PlanCheck {
  /** Which statement and which plan of the prepared statement. */
  label: string;
  /** How the activations table is read, e.g. `Index Scan using activations_user_history_index`. */
  activationsAccess: string[];
  usesHistoryIndex: boolean;
  executionMs: number;
  planningMs: number;
  sharedHit: number;
  sharedRead: number;
  rows: number;
  /** The same EXPLAIN in text form (run once more). */
  text: string;
}

function walk(node: PlanNode, visit: (n: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the exact statement text the API prepared (as
 * captured in the server), run as a prepared statement with both the custom plan
 * (what the first executions of a named statement get) and the generic plan
 * (what PostgreSQL may switch to from the sixth). The history index is "used"
 * when every access to `activations` is an index scan of it: no sequential
 * scan, no bitmap scan followed by a sort.
 */
export async function explainHistory(
  db: PoolClient,
  label: string,
  statementText: string,
  values: Array<string | number>,
): Promise<PlanCheck[]> {
  const name = `bench_explain_${label.replace(/\W/g, '_')}`;
  const args = values.map((v) => (typeof v === 'number' ? String(v) : db.escapeLiteral(v))).join(', ');
  const out: PlanCheck[] = [];
  await db.query(`prepare ${name} as ${statementText}`);
  try {
    for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
      await db.query(`set plan_cache_mode = ${mode}`);
      await db.query(`execute ${name}(${args})`); // warm the pages the plan touches
      const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) execute ${name}(${args})`);
      const raw = rows[0]['QUERY PLAN'];
      const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{
        Plan: PlanNode & { 'Actual Rows': number };
        'Execution Time': number;
        'Planning Time': number;
      }>;
      const top = doc[0];
      const access: string[] = [];
      walk(top.Plan, (n) => {
        if (n['Relation Name'] === 'activations' || n['Index Name']?.startsWith('activations_')) {
          access.push(
            `${n['Node Type']}${n['Scan Direction'] === 'Backward' ? ' Backward' : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`,
          );
        }
      });
      const check: PlanCheck = {
        label: `${label}, ${mode === 'force_custom_plan' ? 'custom' : 'generic'} plan`,
        activationsAccess: access,
        usesHistoryIndex: access.length > 0 && access.every((a) => /^Index (Only )?Scan/.test(a) && a.endsWith(`using ${HISTORY_INDEX}`)),
        executionMs: top['Execution Time'],
        planningMs: top['Planning Time'],
        sharedHit: top.Plan['Shared Hit Blocks'] ?? 0,
        sharedRead: top.Plan['Shared Read Blocks'] ?? 0,
        rows: top.Plan['Actual Rows'],
        text: '',
      };
      const res = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) execute ${name}(${args})`);
      check.text = res.rows.map((r) => r['QUERY PLAN']).join('\n');
      out.push(check);
    }
  } finally {
    await db.query('reset plan_cache_mode');
    await db.query(`deallocate ${name}`);
  }
  return out;
}
