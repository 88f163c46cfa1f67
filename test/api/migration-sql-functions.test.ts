import { functionFiles } from '../../src/db/functions';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// Issue 35 item 3: each SQL function's definition is one file of src/db/functions, and the database the
// migrations build holds exactly those: the same functions, each last left as its file defines it
// (applying the file again changes nothing in pg_get_functiondef, header and body), so no migration
// defines a function without a file or changes one after its file. Each superseded definition is one
// that a down() restores on the way back, and migrating up again ends in the files' definitions.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(2);
});
afterAll(() => db.drop());

type Rows = (sql: string) => Promise<{ name: string; def: string }[]>;
/** The schema's own functions (not an extension's) and their definitions, read by `query`. */
async function definitions(query: Rows = (sql) => db.query(sql)): Promise<Record<string, string>> {
  const rows = await query(`
    select p.proname as name, pg_get_functiondef(p.oid) as def
      from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
     order by 1`);
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

it('holds exactly the functions of src/db/functions, each as its file defines it', async () => {
  const migrated = await definitions();
  expect(Object.keys(migrated).sort()).toEqual(Object.keys(functionFiles.current).sort());

  const client = await db.pool.connect();
  try {
    await client.query('begin');
    for (const sql of Object.values(functionFiles.current)) await client.query(sql);
    const applied = await definitions(async (sql) => (await client.query<{ name: string; def: string }>(sql)).rows);
    expect(applied).toEqual(migrated);
  } finally {
    await client.query('rollback');
    client.release();
  }
});

it('calls from every trigger a function of src/db/functions', async () => {
  const rows = await db.query<{ fn: string }>(`
    select distinct p.proname as fn from pg_trigger t join pg_proc p on p.oid = t.tgfoid join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = 'public'::regnamespace and not t.tgisinternal order by 1`);
  const current = new Set(Object.keys(functionFiles.current));
  expect(rows.map((r) => r.fn).filter((fn) => !current.has(fn))).toEqual([]);
  expect(rows.length).toBeGreaterThan(0);
});

it('restores each superseded definition on the way down, and ends in the files again on the way up', async () => {
  const names = (await db.query<{ name: string }>('select name from mikro_orm_migrations order by id')).map((r) => r.name);
  const seen = new Set<string>();
  for (let i = names.length - 2; i >= 0; i--) {
    await db.migrations.down(names[i]);
    for (const def of Object.values(await definitions())) seen.add(def);
  }
  // A file's definition as PostgreSQL prints it: apply it in a transaction that is rolled back.
  const printed = async (sql: string, name: string) => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('set local check_function_bodies = off');
      await client.query(sql);
      const { rows } = await client.query<{ def: string }>(`select pg_get_functiondef($1::regproc) as def`, [name]);
      return rows[0].def;
    } finally {
      await client.query('rollback');
      client.release();
    }
  };
  for (const [version, sql] of Object.entries(functionFiles.superseded)) {
    const def = await printed(sql, version.replace(/\.v\d+$/, ''));
    expect({ version, restored: seen.has(def) }).toEqual({ version, restored: true });
  }

  await db.migrations.up();
  const migrated = await definitions();
  for (const [name, sql] of Object.entries(functionFiles.current)) {
    expect({ name, def: migrated[name] }).toEqual({ name, def: await printed(sql, name) });
  }
}, 120_000);
