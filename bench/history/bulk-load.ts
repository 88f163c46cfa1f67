/**
 * Growing the history table to 1,000,000 rows with every key live takes minutes on 2
 * cores (per row: 6 index insertions and 5 foreign-key checks on activations alone),
 * so it loads the way pg_restore does: drop the keys, indexes and foreign keys of
 * orders, order_items and activations, insert on two connections, recreate them
 * (unique keys and foreign keys are checked by PostgreSQL over the whole table), and
 * compare the schema with what it was before: it must read back identically.
 */
import type { PoolClient } from 'pg';

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
