import request from 'supertest';
import type { z } from 'zod';
import type { BillingResponse } from '../../src/billing/schemas';
import type { BalanceResponse } from '../../src/contracts/schemas';
import { bearer, createTestApp, eventually, type TestApp } from '../helpers/app';
import { insertCharge, insertPerson } from '../helpers/billing-fixtures';
import { insertPackage } from '../helpers/catalog';
import { signInAs, type Caller } from '../helpers/company-routes';
import { insertContract } from '../helpers/contracts';
import { typed } from '../helpers/responses';
import { rosterCaller } from '../helpers/roster';

// GET /b2b/billing reads company_charges and company_order_lines, which triggers keep from orders,
// order_items, activations, payments, users and packages (migration CompanyCharges). Every write
// those tables see after a charge exists must show in the next answer, exactly as the balance sees it.
let t: TestApp;
let viewer: Caller;
beforeAll(async () => {
  t = await createTestApp();
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
});
afterAll(() => t.close());

type Billing = z.infer<typeof BillingResponse>['data'];
const HOUR = 3_600_000;

async function billing(token: string): Promise<Billing> {
  const res = typed<z.infer<typeof BillingResponse>>(await request(t.app).get('/b2b/billing').set(bearer(token)));
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The billing answer agrees with the administration's balance: drawn is outstanding, same active lines. */
async function expectBalanceAgrees(companyId: string, data: Billing): Promise<void> {
  const res = typed<z.infer<typeof BalanceResponse>>(
    await request(t.app).get(`/admin/contracts/company/${companyId}/balance`).set(bearer(viewer.token)),
  );
  expect(res.body.data).toMatchObject({ drawnSar: data.outstandingSar, activeLines: data.activeLines });
  const sum = data.charges.reduce((s, c) => s + Math.round(c.amountSar * 100), 0);
  expect(sum).toBe(Math.round(data.outstandingSar * 100));
}

async function flexibleCompanyWithCharge() {
  const admin = await rosterCaller(t);
  await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible' });
  const pkg = await insertPackage(t.db, { nameEn: 'Omega', nameAr: 'أوميغا' });
  const person = await insertPerson(t.db, admin.companyId, 'Rana');
  const createdAt = new Date(t.clock().getTime() - HOUR);
  const { orderId } = await insertCharge(t.db, {
    companyId: admin.companyId,
    userId: person.userId,
    packageId: pkg,
    amount: '12.34',
    createdAt,
  });
  return { admin, pkg, person, orderId, createdAt };
}

describe('GET /b2b/billing follows every write to the rows it reads', () => {
  it('shows a person’s and a package’s new name', async () => {
    const f = await flexibleCompanyWithCharge();
    expect((await billing(f.admin.token)).charges).toEqual([
      { date: f.createdAt.toISOString(), personName: 'Rana', packageName: 'Omega', amountSar: 12.34, paymentId: null },
    ]);
    await t.db.query(`update users set name = 'Rana "R" Haddad' where id = $1`, [f.person.userId]);
    await t.db.query(`update packages set name_en = 'Omega Plus', name_ar = 'أوميغا بلس' where id = $1`, [f.pkg]);
    const data = await billing(f.admin.token);
    expect(data.charges[0]).toMatchObject({ personName: 'Rana "R" Haddad', packageName: 'Omega Plus' });
    expect(data.activeLines).toEqual([{ packageId: f.pkg, nameEn: 'Omega Plus', nameAr: 'أوميغا بلس', count: 1, drawnSar: 12.34 }]);
    await expectBalanceAgrees(f.admin.companyId, data);
  });

  it('drops a charge whose activation fails and shows it again on a live retry of the same order', async () => {
    const f = await flexibleCompanyWithCharge();
    await t.db.query(`update activations set status = 'failed' where order_id = $1`, [f.orderId]);
    let data = await billing(f.admin.token);
    expect(data).toMatchObject({ charges: [], outstandingSar: 0, activeLines: [] });
    await expectBalanceAgrees(f.admin.companyId, data);
    // A pending activation is a live charge but no active line.
    await t.db.query(
      `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, created_at, updated_at)
       select gen_random_uuid(), order_id, order_item_id, user_id, operator_id, package_id, iccid || '-2', 'pending', now(), now()
         from activations where order_id = $1`,
      [f.orderId],
    );
    data = await billing(f.admin.token);
    expect(data).toMatchObject({ outstandingSar: 12.34, activeLines: [] });
    expect(data.charges).toHaveLength(1);
    await expectBalanceAgrees(f.admin.companyId, data);
  });

  it('takes the newest completed payment, and drops the charge when the order is cancelled or its rows deleted', async () => {
    const f = await flexibleCompanyWithCharge();
    const pay = (status: string, paidAt: Date | null) =>
      t.db.query<{ id: string }>(
        `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                               paid_at, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, 'local_debit', 'mock', $3, 1234, 'SAR', gen_random_uuid()::text, repeat('f', 64), $4, now(), now())
         returning id`,
        [f.orderId, f.person.userId, status, paidAt],
      );
    const [older] = await pay('completed', new Date(t.clock().getTime() - 2 * HOUR));
    const [newer] = await pay('completed', new Date(t.clock().getTime() - HOUR));
    await pay('failed', null);
    expect((await billing(f.admin.token)).charges[0].paymentId).toBe(newer.id);
    await t.db.query(`update payments set status = 'refunded' where id = $1`, [newer.id]);
    expect((await billing(f.admin.token)).charges[0].paymentId).toBe(older.id);

    await t.db.query(`update orders set status = 'cancelled' where id = $1`, [f.orderId]);
    expect((await billing(f.admin.token)).charges).toEqual([]);
    await t.db.query(`update orders set status = 'completed' where id = $1`, [f.orderId]);
    expect((await billing(f.admin.token)).charges).toHaveLength(1);
    await t.db.query(`delete from payments where order_id = $1`, [f.orderId]);
    expect((await billing(f.admin.token)).charges[0].paymentId).toBeNull();
    await t.db.query(`delete from activations where order_id = $1`, [f.orderId]);
    await t.db.query(`delete from orders where id = $1`, [f.orderId]);
    const data = await billing(f.admin.token);
    expect(data).toMatchObject({ charges: [], outstandingSar: 0, activeLines: [] });
    await expectBalanceAgrees(f.admin.companyId, data);
  });

  it('dates a charge in ISO 8601 UTC with milliseconds, truncating microseconds as the row’s Date would', async () => {
    const f = await flexibleCompanyWithCharge();
    await t.db.query(`update orders set created_at = '2026-03-01 10:00:00.123987+00' where id = $1`, [f.orderId]);
    expect((await billing(f.admin.token)).charges[0].date).toBe('2026-03-01T10:00:00.123Z');
  });

  it('moves an order between companies and keeps consumer orders out', async () => {
    const f = await flexibleCompanyWithCharge();
    const other = await rosterCaller(t);
    await insertContract(t.db, { companyId: other.companyId, mode: 'flexible' });
    await t.db.query(`update orders set company_id = $2 where id = $1`, [f.orderId, other.companyId]);
    expect((await billing(f.admin.token)).charges).toEqual([]);
    expect((await billing(other.token)).charges).toHaveLength(1);
    await t.db.query(`update orders set company_id = null where id = $1`, [f.orderId]);
    expect((await billing(other.token)).charges).toEqual([]);
    await expectBalanceAgrees(other.companyId, await billing(other.token));
  });

  it('raises the company’s charges version with every write to its charges, and no company’s for a consumer order', async () => {
    const f = await flexibleCompanyWithCharge();
    const version = async () =>
      Number(
        (await t.db.query<{ version: string }>('select version from company_charge_versions where company_id = $1', [f.admin.companyId]))[0]
          ?.version ?? 0,
      );
    const before = await version();
    expect(before).toBeGreaterThan(0);
    await billing(f.admin.token); // read and kept
    await t.db.query(`update activations set status = 'cancelled' where order_id = $1`, [f.orderId]);
    expect(await version()).toBeGreaterThan(before);
    expect((await billing(f.admin.token)).charges).toEqual([]); // not the kept read
    const versions = async () => Number((await t.db.query<{ n: string }>('select count(*) as n from company_charge_versions'))[0].n);
    const count = await versions();
    await insertCharge(t.db, { companyId: null, userId: f.person.userId, packageId: f.pkg, amount: '1.00', createdAt: t.clock() });
    expect(await versions()).toBe(count);
  });

  it('stays exact when transactions write the same orders at once (each statement recomputes from what committed)', async () => {
    const f = await flexibleCompanyWithCharge();
    const orders = [f.orderId];
    for (let i = 0; i < 11; i++) {
      const { orderId } = await insertCharge(t.db, {
        companyId: f.admin.companyId,
        userId: f.person.userId,
        packageId: f.pkg,
        amount: `${10 + i}.05`,
        createdAt: new Date(t.clock().getTime() - i * 60_000),
      });
      orders.push(orderId);
    }
    // Per order, three transactions at once, each of two statements with a pause between, written as the
    // app writes a company order: the activation, then its order (the workflow's end of an activation);
    // payments; a person's rename, then the order. Billing is read while they run. Before the refresh
    // locked its orders first, this deadlocked or hit a duplicate key in every run; before the version
    // was raised at commit, it deadlocked now and then (the next test). (Two transactions writing one
    // order's tables in opposite orders can still deadlock: the statement's own row locks come before
    // the trigger's; PostgreSQL then rolls one back whole, and the read model stays exact.)
    const inTransaction = async (statements: [string, unknown[]][]) => {
      const client = await t.db.pool.connect();
      try {
        await client.query('begin');
        for (const [sql, params] of statements) {
          await client.query(sql, params);
          await client.query('select pg_sleep(0.005)');
        }
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
    };
    const payment = (orderId: string): [string, unknown[]] => [
      `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint, paid_at, created_at, updated_at)
       select id, user_id, 'local_debit', 'mock', 'completed', total_halalas, 'SAR', gen_random_uuid()::text, repeat('f', 64), now(), now(), now()
         from orders where id = $1`,
      [orderId],
    ];
    const writes = orders.flatMap((orderId, i) => [
      inTransaction([
        [`update activations set status = $2 where order_id = $1`, [orderId, ['failed', 'cancelled', 'activated'][i % 3]]],
        [`update orders set status = $2, updated_at = now() where id = $1`, [orderId, i % 3 === 1 ? 'cancelled' : 'paid']],
      ]),
      inTransaction([payment(orderId), payment(orderId)]),
      inTransaction([
        [`update users set name = $2 where id = $1`, [f.person.userId, `Rana ${i}`]],
        [`update orders set created_at = created_at - interval '1 second' where id = $1`, [orderId]],
      ]),
    ]);
    await Promise.all([...writes, billing(f.admin.token), billing(f.admin.token)]);

    // Whatever order they ran in, the answer is the normalized rows' truth.
    const data = await billing(f.admin.token);
    await expectBalanceAgrees(f.admin.companyId, data);
    const truth = await t.db.query<{ id: string; paid: string | null; created_at: string }>(
      `select o.id, o.created_at,
              (select p.id from payments p where p.order_id = o.id and p.status = 'completed'
                order by p.paid_at desc nulls last, p.created_at desc, p.id limit 1) as paid
         from orders o
        where o.company_id = $1 and o.status in ('paid', 'completed')
          and exists (select 1 from activations a where a.order_id = o.id and a.status not in ('failed', 'cancelled'))
        order by o.created_at desc, o.id desc`,
      [f.admin.companyId],
    );
    const [{ name }] = await t.db.query<{ name: string }>('select name from users where id = $1', [f.person.userId]);
    expect(data.charges.map((c) => [c.date, c.paymentId, c.personName])).toEqual(
      truth.map((r) => [new Date(r.created_at).toISOString(), r.paid, name]),
    );
  });

  it('raises the version at commit, so a later statement locking an order never waits behind a refresh waiting for the version', async () => {
    // The deadlock the concurrent test hit now and then: a rename refreshes the charged orders; an order
    // with no charge (its activation failed) is not among them. A payment on that order locks it and
    // refreshes it; the rename's transaction then updates that order. While a refresh raised the version
    // row in its own statement, the payment waited for the rename's version row and the rename for the
    // payment's order.
    const f = await flexibleCompanyWithCharge();
    const { orderId } = await insertCharge(t.db, {
      companyId: f.admin.companyId,
      userId: f.person.userId,
      packageId: f.pkg,
      amount: '2.00',
      createdAt: t.clock(),
    });
    await t.db.query(`update activations set status = 'failed' where order_id = $1`, [orderId]);
    const version = async () =>
      Number(
        (await t.db.query<{ version: string }>('select version from company_charge_versions where company_id = $1', [f.admin.companyId]))[0]
          .version,
      );
    const before = await version();
    const [rename, pay] = [await t.db.pool.connect(), await t.db.pool.connect()];
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (err: Error) => err.message,
      );
    try {
      await rename.query('begin');
      await rename.query(`update users set name = 'Rana H' where id = $1`, [f.person.userId]);
      await pay.query('begin');
      const [{ pid }] = (await pay.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
      let settled = false;
      const paid = outcome(
        pay.query(
          `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint, paid_at, created_at, updated_at)
           select id, user_id, 'local_debit', 'mock', 'completed', total_halalas, 'SAR', gen_random_uuid()::text, repeat('f', 64), now(), now(), now()
             from orders where id = $1`,
          [orderId],
        ),
      ).finally(() => (settled = true));
      // The payment has locked its order and either finished or waits (it waited for the version row before).
      await eventually(async () => {
        if (settled) return;
        const [{ waiting }] = await t.db.query<{ waiting: boolean }>(
          `select wait_event_type = 'Lock' as waiting from pg_stat_activity where pid = $1`,
          [pid],
        );
        expect(waiting).toBe(true);
      });
      const renamed = outcome(rename.query(`update orders set created_at = created_at - interval '1 second' where id = $1`, [orderId]));
      expect(await paid).toBeNull();
      await pay.query('commit');
      expect(await renamed).toBeNull();
      await rename.query('commit');
    } finally {
      for (const c of [rename, pay]) {
        await c.query('rollback').catch(() => undefined);
        c.release();
      }
    }
    // The rename re-rendered the charge: one raise. The payment's order has no charge, so it changed no row and raised nothing.
    expect(await version()).toBe(before + 1);
    const data = await billing(f.admin.token);
    expect(data.charges).toEqual([expect.objectContaining({ personName: 'Rana H', amountSar: 12.34 })]);
    await expectBalanceAgrees(f.admin.companyId, data);
  });
});
