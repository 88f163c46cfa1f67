/**
 * Issue 32: a 503 tells the client that nothing happened, so it repeats the request. A request that
 * loses Postgres right after its transaction committed must therefore not answer 503: it answers from
 * what it wrote, or from what it read before or inside the transaction. Here the app's database goes
 * away the moment the request's transaction has committed, and stays away until the answer.
 *
 * Found while adding store orders and company seats to the fault matrix (test/e2e/fault-matrix.test.ts):
 * POST /store/orders read its order back after the commit (a 503, and the retry made a second order),
 * and POST /auth/magic-link read the seat's package and the missing consents after claiming the link (a
 * 503, and the retry was MAGIC_LINK_ALREADY_USED).
 */
import request from 'supertest';
import type { Db } from '../../src/db/sql';
import type { StoreOrderRuns } from '../../src/store/runs';
import { bearer, createTestApp, errorCode, MOBILE, signUp, type TestApp } from '../helpers/app';
import { post, readyCompany } from '../helpers/links-fixtures';
import { typed } from '../helpers/responses';
import { createStoreApp, productId } from '../helpers/store';

/** Armed: the next transaction commits, then every statement fails as with a connection cut, until disarmed. */
const cut = { armed: false, away: false };
const lostAfterCommit = (real: Db): Db => {
  const gate = () => {
    if (cut.away) throw new Error('Connection terminated unexpectedly');
  };
  return {
    pool: real.pool,
    rows: (statement, values) => (gate(), real.rows(statement, values)),
    one: (statement, values) => (gate(), real.one(statement, values)),
    exec: (statement, values) => (gate(), real.exec(statement, values)),
    async transaction(work, options) {
      gate();
      const result = await real.transaction(work, options);
      if (cut.armed) [cut.armed, cut.away] = [false, true];
      return result;
    },
  };
};
/** Runs `req` with Postgres lost right after its commit; back once it answered. */
async function losingAfterCommit<T>(req: () => Promise<T>): Promise<T> {
  cut.armed = true;
  try {
    return await req();
  } finally {
    [cut.armed, cut.away] = [false, false];
  }
}

const noRuns: StoreOrderRuns = { start: () => Promise.resolve() };

describe('POST /store/orders', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createStoreApp({ wrapDb: lostAfterCommit, deps: { storeOrderRuns: noRuns }, env: { MESSAGES_FILE: '/dev/null' } });
  });
  afterAll(() => t.close());

  it('answers 201 with the order it made: one order, not a 503 whose retry makes a second', async () => {
    const buyer = await signUp(t, { email: `lost-${process.pid}@example.com` });
    const ack = typed<{ data: { id: string } }>(
      await post(t, buyer.token, '/store/device-acknowledgements', { deviceModel: 'Phone', esimCompatible: true, carrierUnlocked: true }),
    );
    const ordered = await losingAfterCommit(() =>
      post(t, buyer.token, '/store/orders', { productId: productId('MOCK-SYNC-SA-5GB'), deviceAcknowledgementId: ack.body.data.id }),
    );
    expect([ordered.status, errorCode(ordered)]).toEqual([201, undefined]);
    const made = await t.db.query<{ id: string; status: string }>('select id, status from store_orders where user_id = $1', [buyer.userId]);
    expect(made).toEqual([{ id: (ordered.body as { data: { id: string } }).data.id, status: 'pending_payment' }]);
  });
});

describe('POST /auth/magic-link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ wrapDb: lostAfterCommit });
  });
  afterAll(() => t.close());

  it('answers 200 with the session and the seat once it claimed the link, not a 503 whose retry finds the link used', async () => {
    const c = await readyCompany(t, { people: 1 });
    const exported = typed<{ data: { entries: { link: string }[] } }>(
      await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] }),
    );
    const token = /#token=([A-Za-z0-9_-]+)$/.exec(exported.body.data.entries[0].link)![1];

    const redeemed = await losingAfterCommit(() => request(t.app).post('/auth/magic-link').set(MOBILE).send({ token }));
    expect([redeemed.status, errorCode(redeemed)]).toEqual([200, undefined]);
    const body = redeemed.body as { session: { token: string }; b2b: { packageId: string; consentsRequired: string[] } };
    expect(body.b2b).toMatchObject({
      packageId: c.packageIds[0],
      consentsRequired: ['terms_of_service', 'privacy_policy', 'data_processing'],
    });
    expect((await request(t.app).get('/auth/session').set(bearer(body.session.token))).status).toBe(200);
  });
});

describe('POST /b2b/quotes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ wrapDb: lostAfterCommit });
  });
  afterAll(() => t.close());

  it('answers 201 with the draft it made: one draft, not a 503 whose retry makes a second', async () => {
    const c = await readyCompany(t, { people: 1 });
    const before = await t.db.query<{ id: string }>('select id from quote_versions where company_id = $1', [c.companyId]);
    const drafted = await losingAfterCommit(() =>
      post(t, c.token, '/b2b/quotes', {
        needs: { userCount: 2, preference: 'data', budgetSar: 500 },
        items: [{ packageId: c.packageIds[0], qty: 2 }],
      }),
    );
    expect([drafted.status, errorCode(drafted)]).toEqual([201, undefined]);
    const made = await t.db.query<{ id: string }>('select id from quote_versions where company_id = $1', [c.companyId]);
    expect(made.map((q) => q.id).filter((id) => !before.some((b) => b.id === id))).toEqual([
      (drafted.body as { data: { id: string } }).data.id,
    ]);
  });
});
