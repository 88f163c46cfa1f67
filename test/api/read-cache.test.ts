import request from 'supertest';
import { createApp } from '../../src/app';
import { createReadCache } from '../../src/db/read-cache';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { bearer, createTestApp, errorCode, eventually, type TestApp } from '../helpers/app';
import { insertCharge } from '../helpers/billing-fixtures';
import { insertPackage } from '../helpers/catalog';
import { insertUser } from '../helpers/companies';
import { companyAdmin, signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment, insertRosterEntry, insertSeatLink } from '../helpers/contracts';

// The read cache (src/db/read-cache.ts) is on here (other files turn it off, as they change rows with
// SQL and read at once): these tests prove the portal and admin reads and the guards' lookups are
// served from memory, and that every write is seen by the next read: at once through this instance,
// and through the triggers' NOTIFY from SQL and from another instance.
const TTL_MS = 60_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { PORTAL_CACHE_MS: String(TTL_MS) } });
});
afterAll(() => t.close());

type Admin = Caller & { companyId: string };
const get = (path: string, token: string, app = t.app) => request(app).get(path).set(bearer(token));

interface Listing {
  total: number;
  entries: Array<{ id: string; userId: string; name: string; linkStatus: string }>;
}
/** The answer's `data`, as a list answer (or what the caller says). */
const dataOf = <T = Listing>(res: { body: unknown }) => (res.body as { data: T }).data;

/**
 * Statements the app sends through the pool while `work` runs (named ones by name), but the session
 * check's (its own cache is off here) and the rate limit's background sync.
 */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(t.db.pool, 'query');
  try {
    await work();
    return spy.mock.calls
      .map(([q]) => {
        const statement = (typeof q === 'object' && q !== null ? q : { text: String(q) }) as { name?: string; text?: string };
        return statement.name ?? statement.text ?? '';
      })
      .filter((s) => !/rate_limits/i.test(s) && !s.startsWith('auth.'));
  } finally {
    spy.mockRestore();
  }
}

/** Reads `path` until a repeat reaches no statement at all (the listener connects in the background). */
async function warm(path: string, token: string, app = t.app) {
  await eventually(async () => {
    expect((await get(path, token, app)).status).toBe(200);
    expect(await statementsDuring(() => get(path, token, app).expect(200))).toEqual([]);
  });
}

const readiness = async (token: string, app = t.app) =>
  dataOf<Record<string, boolean>>(await get('/b2b/readiness', token, app).expect(200));

describe('read cache', () => {
  let admin: Admin;
  beforeEach(async () => {
    admin = await companyAdmin(t);
  });

  it('serves repeated reads, their guard included, without a statement', async () => {
    await warm('/b2b/readiness', admin.token);
    const seen = await statementsDuring(async () => {
      for (let i = 0; i < 5; i++) await get('/b2b/readiness', admin.token).expect(200);
      await get('/b2b/company', admin.token).expect(200);
      await get('/b2b/company', admin.token).expect(200);
    });
    // Only the first /b2b/company read reaches PostgreSQL (the membership is kept already).
    expect(seen.filter((s) => s !== 'companies.of-user')).toEqual([]);
    expect(seen.filter((s) => s === 'companies.of-user')).toHaveLength(1);
  });

  it('sends a kept answer as Express would send its text: type, length, ETag, and 304 to If-None-Match', async () => {
    await warm('/b2b/readiness', admin.token);
    const first = await get('/b2b/readiness', admin.token).expect(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(first.body)));
    expect(first.headers.etag).toMatch(/^W\/"/);
    expect((await get('/b2b/readiness', admin.token).set('If-None-Match', String(first.headers.etag))).status).toBe(304);
  });

  it('shows a write through this instance on the very next read', async () => {
    await warm('/b2b/readiness', admin.token);
    expect((await readiness(admin.token)).rosterStaged).toBe(false);
    const staged = await request(t.app)
      .post('/b2b/roster/stage')
      .set(bearer(admin.token))
      .send({ rows: [{ name: 'Next Read', phone: '+447700900123', identityType: 'resident', nationality: 'Egypt' }] });
    expect(staged.status).toBe(200);
    expect((await readiness(admin.token)).rosterStaged).toBe(true); // no waiting: the POST forgot the kept reads
  });

  it('shows a write by anyone else (SQL, the worker) once its NOTIFY arrives', async () => {
    await warm('/b2b/readiness', admin.token);
    const pkg = await insertPackage(t.db);
    const contract = await insertContract(t.db, {
      companyId: admin.companyId,
      items: [{ packageId: pkg, qty: 2, unitPriceHalalas: 5_000 }],
    });
    await eventually(async () => expect((await readiness(admin.token)).contractConfirmed).toBe(true));
    expect((await readiness(admin.token)).paymentSatisfied).toBe(false);
    await insertContractPayment(t.db, contract.contractId, contract.totalHalalas); // a contract's row: found through its contract
    await eventually(async () => expect((await readiness(admin.token)).paymentSatisfied).toBe(true));
    await insertRosterEntry(t.db, admin.companyId);
    await eventually(async () => expect((await readiness(admin.token)).canSendLinks).toBe(true));
  });

  it('shows a write through another API instance (each keeps its own answers)', async () => {
    const other = createApp({
      config: t.config,
      db: t.db.sql,
      clock: t.clock,
      logger: createLogger('silent'),
      messages: createMemoryMessageSender(),
    });
    try {
      await warm('/b2b/roster', admin.token, other);
      expect(dataOf(await get('/b2b/roster', admin.token, other)).total).toBe(0);
      const staged = await request(t.app)
        .post('/b2b/roster/stage')
        .set(bearer(admin.token))
        .send({ rows: [{ name: 'Other Instance', phone: '+447700900124', identityType: 'resident', nationality: 'Egypt' }] });
      expect(staged.status).toBe(200);
      await eventually(async () => expect(dataOf(await get('/b2b/roster', admin.token, other)).total).toBe(1));
      // A person's rename (their user row, shown on the roster) reaches the other instance too.
      const { entries } = dataOf(await get('/b2b/roster', admin.token, other));
      await t.db.query('update users set name = $2 where id = $1', [entries[0].userId, 'Renamed Person']);
      await eventually(async () => expect(dataOf(await get('/b2b/roster', admin.token, other)).entries[0].name).toBe('Renamed Person'));
    } finally {
      await (other.locals.stop as () => Promise<void>)();
    }
  });

  it('re-checks the company guard when the membership or the company changes', async () => {
    await warm('/b2b/readiness', admin.token);
    await t.db.query(`update companies set status = 'suspended' where id = $1`, [admin.companyId]);
    await eventually(async () => expect(errorCode(await get('/b2b/readiness', admin.token))).toBe('COMPANY_SUSPENDED'));
    await t.db.query(`update companies set status = 'approved' where id = $1`, [admin.companyId]);
    await eventually(async () => expect((await get('/b2b/readiness', admin.token)).status).toBe(200));
    await t.db.query('delete from company_users where user_id = $1', [admin.userId]);
    await eventually(async () => expect(errorCode(await get('/b2b/readiness', admin.token))).toBe('AUTH_FORBIDDEN'));
  });

  it('re-checks a staff member’s areas when their row changes, and the admin lists when any link, company or quote does', async () => {
    const staff = await signInAs(t, 'admin', { view: ['b2b'] });
    await warm('/admin/links', staff.token);
    await warm('/admin/companies', staff.token);
    await warm('/admin/quotes', staff.token);
    const links = dataOf(await get('/admin/links', staff.token)).total;
    const companies = dataOf(await get('/admin/companies', staff.token)).total;
    const quotes = dataOf(await get('/admin/quotes', staff.token)).total;

    const { userId } = await insertRosterEntry(t.db, admin.companyId);
    const pkg = await insertPackage(t.db);
    const contract = await insertContract(t.db, {
      companyId: admin.companyId,
      items: [{ packageId: pkg, qty: 1, unitPriceHalalas: 5_000 }],
    });
    await insertSeatLink(t.db, {
      companyId: admin.companyId,
      userId,
      contractItemId: contract.itemIds[0],
      status: 'sent',
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    await eventually(async () => expect(dataOf(await get('/admin/links', staff.token)).total).toBe(links + 1));
    await companyAdmin(t); // a company registered through this instance
    expect(dataOf(await get('/admin/companies', staff.token)).total).toBe(companies + 1);
    await t.db.query(`update quote_versions set status = 'submitted' where id = $1`, [contract.quoteVersionId]);
    await eventually(async () => expect(dataOf(await get('/admin/quotes', staff.token)).total).not.toBe(quotes));

    await t.db.query('update users set managed_areas = $2 where id = $1', [staff.userId, []]);
    await eventually(async () => expect(errorCode(await get('/admin/links', staff.token))).toBe('AUTH_FORBIDDEN'));
  });

  it('does not evict on a sign-in (only columns an answer shows or a guard reads notify)', async () => {
    await warm('/b2b/readiness', admin.token);
    await t.db.query('update users set updated_at = now(), verified_at = now() where id = $1', [admin.userId]);
    await t.db.query('select 1'); // a round trip after the update: a notification, if any, has been sent
    expect(await statementsDuring(() => get('/b2b/readiness', admin.token).expect(200))).toEqual([]);
  });

  it('reads again once the time limit passes on the app’s clock (lazy expiry is at most that late)', async () => {
    const { userId, rosterEntryId } = await insertRosterEntry(t.db, admin.companyId);
    await t.db.query(
      `insert into invitation_links (token_hash, user_id, company_id, roster_entry_id, status, expires_at, created_at, updated_at)
       values (md5(random()::text), $1, $2, $3, 'sent', $4, now(), now())`,
      [userId, admin.companyId, rosterEntryId, new Date(t.clock().getTime() + 60_000)],
    );
    const entry = async () => dataOf(await get('/b2b/roster', admin.token)).entries.find((e) => e.id === rosterEntryId);
    await eventually(async () => expect((await entry())?.linkStatus).toBe('sent'));
    await warm('/b2b/roster', admin.token);
    t.clock.advance(TTL_MS + 1);
    expect((await entry())?.linkStatus).toBe('expired');
  });
});

describe('read cache: what notifies', () => {
  /** The tags `work` notifies, in order: a listener of its own, and a last notification to know all have arrived. */
  async function notifiedBy(work: () => Promise<unknown>): Promise<string[]> {
    const listener = await t.db.pool.connect();
    const seen: string[] = [];
    listener.on('notification', (msg) => seen.push(msg.payload ?? ''));
    try {
      await listener.query('LISTEN portal_changed');
      await work();
      await t.db.query(`select pg_notify('portal_changed', 'end')`);
      await eventually(() => expect(seen.at(-1)).toBe('end'));
      return seen.slice(0, -1);
    } finally {
      await listener.query('UNLISTEN portal_changed');
      listener.release();
    }
  }

  it('sends nothing for a consumer’s order, activation, sign-in or a store provider’s health check', async () => {
    const consumer = await insertUser(t.db, 'Consumer Only');
    const pkg = await insertPackage(t.db);
    const tags = await notifiedBy(async () => {
      const { orderId } = await insertCharge(t.db, {
        companyId: null,
        userId: consumer,
        packageId: pkg,
        amount: '5.00',
        createdAt: t.clock(),
      });
      await t.db.query(`update activations set status = 'failed' where order_id = $1`, [orderId]);
      await t.db.query(`update orders set status = 'cancelled' where id = $1`, [orderId]);
      await t.db.query('update users set updated_at = now() where id = $1', [consumer]);
      await t.db.query(
        `update operators set health_ok = true, health_checked_at = now() where id = (select operator_id from packages where id = $1)`,
        [pkg],
      );
    });
    expect(tags).toEqual([]);
  });

  it('sends each tag of a statement once, however many rows it wrote, and a roster person’s consumer activation as theirs', async () => {
    const admin = await companyAdmin(t);
    const people = await Promise.all([1, 2, 3].map(() => insertRosterEntry(t.db, admin.companyId)));
    const pkg = await insertPackage(t.db);
    const rows = await notifiedBy(() =>
      t.db.query(`update roster_entries set nationality = 'Egypt' where company_id = $1`, [admin.companyId]),
    );
    expect(rows).toEqual([`company:${admin.companyId}`]);
    const activation = await notifiedBy(() =>
      insertCharge(t.db, { companyId: null, userId: people[0].userId, packageId: pkg, amount: '5.00', createdAt: t.clock() }),
    );
    expect(activation).toEqual([`user:${people[0].userId}`]);
  });
});

describe('read cache: a read racing an invalidation', () => {
  it('is answered but not kept', async () => {
    const cache = createReadCache({ pool: t.db.pool, ttlMs: TTL_MS, clock: () => new Date() });
    try {
      let probes = 0;
      const probe = () => Promise.resolve({ value: ++probes, tags: [] });
      await eventually(async () => {
        const first = await cache.read('probe', probe);
        expect(await cache.read('probe', probe)).toBe(first); // listening: kept
      });
      let loads = 0;
      const load = async () => {
        loads += 1;
        if (loads === 1) {
          // A change committed while this read runs: its notification is handled before the read ends.
          await t.db.query(`select pg_notify('portal_changed', 'company:00000000-0000-4000-8000-000000000000')`);
          await new Promise((r) => setTimeout(r, 100));
        }
        return { value: loads, tags: ['company:00000000-0000-4000-8000-000000000001' as const] };
      };
      expect(await cache.read('k', load)).toBe(1); // answered
      expect(await cache.read('k', load)).toBe(2); // not kept: read again
      expect(await cache.read('k', load)).toBe(2); // this one was kept
    } finally {
      await cache.stop();
    }
  });
});
