import { createDb, query, type Db } from '../../src/db/sql';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The one data-access interface (src/db/sql.ts) on a real Postgres: statements with $n placeholders,
// named statements, arrays bound as arrays, and transactions that commit, roll back and release.
let t: TestDatabase;
let db: Db;
beforeAll(async () => {
  t = await createTestDatabase(3);
  db = createDb(t.pool);
  await db.exec('create table sql_probe (id int primary key, label text not null)');
});
afterAll(() => t.drop());

const labels = async () => (await db.rows<{ label: string }>('select label from sql_probe order by id')).map((r) => r.label);

it('runs statements with $n placeholders and binds a JS array as a Postgres array', async () => {
  expect(
    await db.exec('insert into sql_probe (id, label) select * from unnest($1::int[], $2::text[])', [
      [1, 2],
      ['a', 'b"c'],
    ]),
  ).toBe(2);
  expect(await labels()).toEqual(['a', 'b"c']);
  expect(await db.one<{ n: number }>('select count(*)::int as n from sql_probe where id = any($1)', [[1, 2, 3]])).toEqual({ n: 2 });
  expect(await db.one('select 1 from sql_probe where id = $1', [99])).toBeUndefined();
});

it('prepares a named statement once per connection and reuses it', async () => {
  const byId = query('sql-probe-label', 'select label from sql_probe where id = $1');
  // One connection (a transaction) so its own prepared statements can be read back.
  const prepared = await db.transaction(async (tx) => {
    for (let i = 0; i < 3; i++) expect(await tx.one<{ label: string }>(byId, [1])).toEqual({ label: 'a' });
    return tx.rows<{ statement: string }>(`select statement from pg_prepared_statements where name = 'sql-probe-label'`);
  });
  expect(prepared).toEqual([{ statement: byId.text }]);
});

it('commits a transaction whose work resolves, and answers its result', async () => {
  const result = await db.transaction(async (tx) => {
    await tx.exec('insert into sql_probe (id, label) values ($1, $2)', [3, 'kept']);
    return tx.one<{ n: number }>('select count(*)::int as n from sql_probe');
  });
  expect(result).toEqual({ n: 3 });
  expect(await labels()).toContain('kept');
});

it('rolls back a transaction whose work throws, and gives the connection back', async () => {
  for (let i = 0; i < 5; i++) {
    await expect(
      db.transaction(async (tx) => {
        await tx.exec('insert into sql_probe (id, label) values ($1, $2)', [10 + i, 'lost']);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
  }
  expect(await labels()).not.toContain('lost');
  // Five failed transactions on a pool of three: every connection came back.
  expect(t.pool.totalCount - t.pool.idleCount).toBe(0);
});

it('rolls back on a failed statement too (the unique key decides)', async () => {
  await expect(
    db.transaction(async (tx) => {
      await tx.exec('insert into sql_probe (id, label) values ($1, $2)', [20, 'first']);
      await tx.exec('insert into sql_probe (id, label) values ($1, $2)', [1, 'duplicate']);
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect(await labels()).not.toContain('first');
});

it('opens the isolation level and read-only mode asked for', async () => {
  const modes = await db.transaction(
    (tx) =>
      tx.one<{ isolation: string; readOnly: string }>(
        `select current_setting('transaction_isolation') as isolation, current_setting('transaction_read_only') as "readOnly"`,
      ),
    { isolation: 'repeatable read', readOnly: true },
  );
  expect(modes).toEqual({ isolation: 'repeatable read', readOnly: 'on' });
});

it('reads timestamps as Date and bigint as text (pg’s own parsers)', async () => {
  const row = await db.one<{ at: Date; big: string }>(
    `select timestamptz '2026-01-02 03:04:05.678+00' as at, 9007199254740993::bigint as big`,
  );
  expect(row?.at).toEqual(new Date('2026-01-02T03:04:05.678Z'));
  expect(row?.big).toBe('9007199254740993');
});

it('fails a transaction whose connection the server ends, and the pool goes on (test/unit/db-transaction.test.ts: no unhandled error)', async () => {
  const attempt = db.transaction(async (tx) => {
    const me = await tx.one<{ pid: number }>('select pg_backend_pid() as pid');
    await db.exec('select pg_terminate_backend($1)', [me?.pid]);
    // The server closes the connection while no statement runs on it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await tx.exec('select 1');
  });
  await expect(attempt).rejects.toThrow();
  expect(await db.one<{ ok: number }>('select 1 as ok')).toEqual({ ok: 1 });
});
