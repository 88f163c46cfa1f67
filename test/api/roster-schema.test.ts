import { randomUUID } from 'node:crypto';
import { insertCompany, insertUser } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The roster tables: one entry per company and person, and the trigger that copies an entry's
// newest invitation link onto it (what GET /b2b/roster filters on).
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(4);
});
afterAll(() => db.drop());

async function entry(companyId: string, userId: string): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into roster_entries (company_id, user_id, created_at, updated_at) values ($1, $2, now(), now()) returning id`,
    [companyId, userId],
  );
  return row.id;
}

async function link(
  entryId: string,
  userId: string,
  status: string,
  createdAt: string,
  expiresAt = '2030-01-01T00:00:00Z',
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into invitation_links (id, token_hash, user_id, roster_entry_id, status, expires_at, created_at, updated_at)
     values ($1::uuid, md5($1::text) || md5($1::text), $2, $3, $4, $5, $6, $6)`,
    [id, userId, entryId, status, expiresAt, createdAt],
  );
  return id;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
const copy = async (entryId: string) =>
  (
    await db.query<{ link_status: string | null; link_expires_at: string | null; link_created_at: string | null }>(
      `select link_status, ${iso('link_expires_at')} as link_expires_at, ${iso('link_created_at')} as link_created_at
         from roster_entries where id = $1`,
      [entryId],
    )
  )[0];

describe('roster_entries', () => {
  it('holds a person once per company, staged by default', async () => {
    const companyId = await insertCompany(db, 'approved');
    const userId = await insertUser(db, 'Beneficiary');
    const id = await entry(companyId, userId);
    expect(await db.query('select status, link_status from roster_entries where id = $1', [id])).toEqual([
      { status: 'staged', link_status: null },
    ]);
    await expect(entry(companyId, userId)).rejects.toThrow(/roster_entries_company_user_unique/);
    await expect(db.query(`update roster_entries set status = 'archived' where id = $1`, [id])).rejects.toThrow(
      /roster_entries_status_check/,
    );
  });

  it('copies the newest link onto the entry on insert, update and delete', async () => {
    const companyId = await insertCompany(db, 'approved');
    const userId = await insertUser(db, 'Linked');
    const id = await entry(companyId, userId);
    const first = await link(id, userId, 'revoked', '2026-01-01T00:00:00Z');
    expect(await copy(id)).toEqual({
      link_status: 'revoked',
      link_expires_at: '2030-01-01T00:00:00Z',
      link_created_at: '2026-01-01T00:00:00Z',
    });
    const second = await link(id, userId, 'issued', '2026-02-01T00:00:00Z', '2026-02-02T00:00:00Z');
    expect(await copy(id)).toMatchObject({ link_status: 'issued', link_expires_at: '2026-02-02T00:00:00Z' });
    // An older link inserted later (a backfill) does not take over.
    await link(id, userId, 'used', '2025-12-01T00:00:00Z');
    expect(await copy(id)).toMatchObject({ link_status: 'issued' });
    await db.query(`update invitation_links set status = 'sent' where id = $1`, [second]);
    expect(await copy(id)).toMatchObject({ link_status: 'sent' });
    // Only the newest counts: changing an older one leaves the copy alone.
    await db.query(`update invitation_links set status = 'expired' where id = $1`, [first]);
    expect(await copy(id)).toMatchObject({ link_status: 'sent' });
    await db.query('delete from invitation_links where id = $1', [second]);
    expect(await copy(id)).toMatchObject({ link_status: 'expired', link_created_at: '2026-01-01T00:00:00Z' });
    await db.query('delete from invitation_links where roster_entry_id = $1', [id]);
    expect(await copy(id)).toEqual({ link_status: null, link_expires_at: null, link_created_at: null });
  });

  it('follows a link moved to another entry, and leaves links of no entry alone', async () => {
    const companyId = await insertCompany(db, 'approved');
    const userId = await insertUser(db, 'Mover');
    const a = await entry(companyId, userId);
    const b = await entry(await insertCompany(db, 'approved'), userId);
    const moved = await link(a, userId, 'exported', '2026-03-01T00:00:00Z');
    await db.query('update invitation_links set roster_entry_id = $2 where id = $1', [moved, b]);
    expect((await copy(a)).link_status).toBeNull();
    expect((await copy(b)).link_status).toBe('exported');
    await db.query(
      `insert into invitation_links (token_hash, user_id, status, expires_at, created_at, updated_at)
       values (repeat('f', 64), $1, 'issued', now(), now(), now())`,
      [userId],
    );
    expect((await copy(b)).link_status).toBe('exported');
  });

  it('goes with its user, and takes its link history with it', async () => {
    const companyId = await insertCompany(db, 'approved');
    const userId = await insertUser(db, 'Removed');
    const id = await entry(companyId, userId);
    await link(id, userId, 'issued', '2026-01-01T00:00:00Z');
    await db.query('delete from roster_entries where id = $1', [id]);
    expect(await db.query('select id from invitation_links where roster_entry_id = $1', [id])).toEqual([]);
    const again = await entry(companyId, userId);
    await db.query('delete from users where id = $1', [userId]);
    expect(await db.query('select id from roster_entries where id = $1', [again])).toEqual([]);
  });
});

describe('roster_counts', () => {
  const counts = async (companyId: string) =>
    Object.fromEntries(
      (
        await db.query<{ status: string; entries: number }>('select status, entries from roster_counts where company_id = $1', [companyId])
      ).map((r) => [r.status, r.entries]),
    );

  it('follows inserts (one statement of many rows), status changes, moves and deletes, per company and status', async () => {
    const companyId = await insertCompany(db, 'approved');
    const other = await insertCompany(db, 'approved');
    const users = await Promise.all([1, 2, 3, 4].map((i) => insertUser(db, `Counted ${i}`)));
    await db.query(
      `insert into roster_entries (company_id, user_id, created_at, updated_at) select $1, u, now(), now() from unnest($2::uuid[]) u`,
      [companyId, users],
    );
    expect(await counts(companyId)).toEqual({ staged: 4 });
    await db.query(`update roster_entries set status = 'enabled' where user_id = any($1)`, [users.slice(0, 2)]);
    expect(await counts(companyId)).toEqual({ staged: 2, enabled: 2 });
    // An update that changes no status (the latest-link copy, say) changes no counter.
    await db.query(`update roster_entries set nationality = 'Oman' where company_id = $1`, [companyId]);
    expect(await counts(companyId)).toEqual({ staged: 2, enabled: 2 });
    await db.query(`update roster_entries set company_id = $2 where user_id = $1`, [users[3], other]);
    expect([await counts(companyId), await counts(other)]).toEqual([{ staged: 1, enabled: 2 }, { staged: 1 }]);
    await db.query('delete from roster_entries where user_id = $1', [users[0]]);
    await db.query('delete from users where id = $1', [users[2]]);
    expect(await counts(companyId)).toEqual({ staged: 0, enabled: 1 });
  });

  it('goes with its company, rows and all', async () => {
    const companyId = await insertCompany(db, 'approved');
    await entry(companyId, await insertUser(db, 'Leaving'));
    await db.query('delete from companies where id = $1', [companyId]);
    expect(await counts(companyId)).toEqual({});
  });
});
