import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { BalanceResponse, MaybeContractResponse } from '../../src/contracts/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { insertCompany } from '../helpers/companies';
import { companyAdmin, companyPerson, fakeCompanyRuns, signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment, insertRosterEntry, insertSeatLink } from '../helpers/contracts';
import { errorOf, typed } from '../helpers/responses';
import { rosterCaller } from '../helpers/roster';

// Spec "Contract", "Payment mode", "Portal: contract" (GET /b2b/contract) and "Admin: contracts"
// (the active contract and the balance of a company). Contracts are inserted by SQL: the quote
// workflow that confirms them is tested on its own.
let t: TestApp;
let viewer: Caller;
let manager: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: fakeCompanyRuns(() => t.db) } });
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
  manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
});
afterAll(() => t.close());

type ContractAnswer = z.infer<typeof MaybeContractResponse>;
type BalanceAnswer = z.infer<typeof BalanceResponse>;
const HOUR = 3_600_000;

const get = async <B>(path: string, token: string, lang?: string) => {
  const req = request(t.app).get(path).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<B>(await req);
};
const portalContract = (token: string) => get<ContractAnswer>('/b2b/contract', token);
const adminContract = (companyId: string, token = viewer.token) => get<ContractAnswer>(`/admin/contracts/company/${companyId}`, token);
const balance = (companyId: string, token = viewer.token) => get<BalanceAnswer>(`/admin/contracts/company/${companyId}/balance`, token);

async function prepaidCompany() {
  const admin = await rosterCaller(t);
  const [a, b] = [await insertPackage(t.db, { nameEn: 'Alpha' }), await insertPackage(t.db, { nameEn: 'Beta' })];
  const contract = await insertContract(t.db, {
    companyId: admin.companyId,
    confirmedBy: manager.userId,
    items: [
      { packageId: a, qty: 2, unitPriceHalalas: 4_950 },
      { packageId: b, qty: 3, unitPriceHalalas: 10_001 },
    ],
  });
  return { admin, contract, packages: [a, b] };
}

describe('GET /b2b/contract', () => {
  it('answers null before a contract exists, for the admin and a member', async () => {
    const admin = await rosterCaller(t);
    const member = await companyPerson(t, admin.companyId, 'member');
    for (const who of [admin, member]) expect((await portalContract(who.token)).body).toEqual({ data: null });
  });

  it('answers the active prepaid contract with its lines, seats, roster count and drift, to the admin and a member', async () => {
    const { admin, contract, packages } = await prepaidCompany();
    const member = await companyPerson(t, admin.companyId, 'member');
    const people: { rosterEntryId: string; userId: string }[] = [];
    for (let i = 0; i < 7; i++) people.push(await insertRosterEntry(t.db, admin.companyId));
    const now = t.clock().getTime();
    const seat = (i: number, status: string, expiresIn: number) =>
      insertSeatLink(t.db, {
        companyId: admin.companyId,
        userId: people[i].userId,
        contractItemId: contract.itemIds[0],
        status,
        expiresAt: new Date(now + expiresIn),
      });
    await seat(0, 'used', -HOUR);
    await seat(1, 'sent', HOUR);
    await seat(2, 'issued', -HOUR); // past expiry: no seat
    const res = await portalContract(member.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: contract.contractId,
      ref: contract.ref,
      companyId: admin.companyId,
      quoteRequestId: contract.quoteVersionId,
      paymentMode: 'prepaid',
      status: 'active',
      totalSar: 399.03,
      confirmedBy: manager.userId,
      totalQty: 5,
      rosterCount: 7,
      driftExcess: 2,
    });
    expect(res.body.data?.ref).toMatch(/^CTR-[0-9A-Fa-f]{12}$/);
    const lines = Object.fromEntries((res.body.data?.items ?? []).map((i) => [i.packageId, i]));
    expect(lines[packages[0]]).toEqual({
      id: contract.itemIds[0],
      packageId: packages[0],
      qty: 2,
      unitPriceSar: 49.5,
      consumedQty: 2,
      remainingQty: 0,
    });
    expect(lines[packages[1]]).toMatchObject({ qty: 3, unitPriceSar: 100.01, consumedQty: 0, remainingQty: 3 });
    // The lazy expiry follows the app's clock: two hours on, the `sent` link no longer holds its seat.
    t.clock.advance(2 * HOUR);
    try {
      const later = await portalContract(admin.token);
      expect(later.body.data?.items.find((i) => i.packageId === packages[0])).toMatchObject({ consumedQty: 1, remainingQty: 1 });
    } finally {
      t.clock.advance(-2 * HOUR);
    }
  });

  it('answers a flexible contract with no lines, totalQty 0, driftExcess 0 and the declared funding', async () => {
    const admin = await rosterCaller(t);
    await insertRosterEntry(t.db, admin.companyId);
    const contract = await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible', totalHalalas: 1_234_567 });
    expect((await portalContract(admin.token)).body.data).toMatchObject({
      id: contract.contractId,
      paymentMode: 'flexible',
      totalSar: 12_345.67,
      items: [],
      totalQty: 0,
      rosterCount: 1,
      driftExcess: 0,
    });
  });

  it('never shows another company’s contract', async () => {
    const { admin } = await prepaidCompany();
    const other = await rosterCaller(t);
    expect((await portalContract(other.token)).body).toEqual({ data: null });
    expect((await portalContract(admin.token)).body.data?.companyId).toBe(admin.companyId);
  });

  it.each([
    ['pending', 'COMPANY_NOT_APPROVED'],
    ['suspended', 'COMPANY_SUSPENDED'],
    ['rejected', 'COMPANY_REJECTED'],
  ] as const)('refuses a %s company with %s, in English and Arabic', async (status, code) => {
    const admin = await rosterCaller(t, status);
    for (const lang of ['en', 'ar'] as const) {
      const res = await get('/b2b/contract', admin.token, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, code, errorCodes[code][lang]]);
    }
  });
});

describe('GET /admin/contracts/company/:companyId', () => {
  it('answers the active contract to View staff and a super_admin; null for none, unknown or malformed ids', async () => {
    const { admin, contract } = await prepaidCompany();
    const root = await signInAs(t, 'super_admin');
    for (const token of [viewer.token, manager.token, root.token]) {
      expect((await adminContract(admin.companyId, token)).body.data?.id).toBe(contract.contractId);
    }
    const bare = await insertCompany(t.db, 'approved');
    for (const id of [bare, randomUUID(), 'not-a-uuid']) expect((await adminContract(id)).body).toEqual({ data: null });
  });

  it('refuses staff without the b2b area and company users (AUTH_FORBIDDEN, both languages)', async () => {
    const noArea = await signInAs(t, 'admin');
    const { admin } = await prepaidCompany();
    for (const [i, token] of [noArea.token, admin.token].entries()) {
      const lang = i % 2 === 0 ? 'en' : 'ar';
      const res = await get(`/admin/contracts/company/${admin.companyId}`, token, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN[lang]]);
    }
  });
});

describe('PATCH /b2b/company/payment-mode with a contract', () => {
  it('switches freely before a contract, then answers CONTRACT_ALREADY_EXISTS (both languages) and keeps the mode', async () => {
    const admin = await companyAdmin(t);
    const setMode = (paymentMode: string, lang = 'en') =>
      request(t.app).patch('/b2b/company/payment-mode').set(bearer(admin.token)).set('Accept-Language', lang).send({ paymentMode });
    expect((await setMode('flexible')).status).toBe(200);
    expect((await setMode('prepaid')).status).toBe(200);
    await insertContract(t.db, { companyId: admin.companyId, items: [] });
    for (const lang of ['en', 'ar'] as const) {
      const res = await setMode('flexible', lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([
        409,
        'CONTRACT_ALREADY_EXISTS',
        errorCodes.CONTRACT_ALREADY_EXISTS[lang],
      ]);
    }
    // Also the same mode again: the lock is checked before "nothing to change".
    expect(errorCode(await setMode('prepaid'))).toBe('CONTRACT_ALREADY_EXISTS');
    const [row] = await t.db.query<{ payment_mode: string }>('select payment_mode from companies where id = $1', [admin.companyId]);
    expect(row.payment_mode).toBe('prepaid');
  });
});

describe('GET /admin/contracts/company/:companyId/balance', () => {
  const ZEROS = { fundedSar: 0, drawnSar: 0, committedSar: 0, availableSar: 0, activeLines: [] };

  it('answers zeros, not 404, for an unknown or malformed id (prepaid), and a company without a contract (its picked mode)', async () => {
    for (const id of [randomUUID(), 'nope']) expect((await balance(id)).body).toEqual({ data: { paymentMode: 'prepaid', ...ZEROS } });
    const unpicked = await insertCompany(t.db, 'approved');
    expect((await balance(unpicked)).body).toEqual({ data: { paymentMode: 'prepaid', ...ZEROS } });
    const flexible = await insertCompany(t.db, 'approved');
    await t.db.query(`update companies set payment_mode = 'flexible' where id = $1`, [flexible]);
    expect((await balance(flexible)).body).toEqual({ data: { paymentMode: 'flexible', ...ZEROS } });
  });

  it('answers zeros for a prepaid contract, however much was paid', async () => {
    const { admin, contract } = await prepaidCompany();
    await insertContractPayment(t.db, contract.contractId, contract.totalHalalas);
    expect((await balance(admin.companyId)).body).toEqual({ data: { paymentMode: 'prepaid', ...ZEROS } });
  });

  it('sums the flexible contract’s payments as funded and available while nothing is drawn', async () => {
    const companyId = await insertCompany(t.db, 'approved');
    const contract = await insertContract(t.db, { companyId, mode: 'flexible', totalHalalas: 500_000 });
    expect((await balance(companyId)).body.data).toEqual({ paymentMode: 'flexible', ...ZEROS });
    await insertContractPayment(t.db, contract.contractId, 300_001);
    await insertContractPayment(t.db, contract.contractId, 200_000);
    const res = await balance(companyId, manager.token);
    expect(res.body).toEqual({
      data: { paymentMode: 'flexible', fundedSar: 5_000.01, drawnSar: 0, committedSar: 0, availableSar: 5_000.01, activeLines: [] },
    });
  });

  it('draws the company’s paid orders whose activation is alive, lists live activated lines, commits consumed seats without a live charge', async () => {
    const companyId = await insertCompany(t.db, 'approved');
    const contract = await insertContract(t.db, { companyId, mode: 'flexible', totalHalalas: 100_000 });
    await insertContractPayment(t.db, contract.contractId, 100_000);
    const pkg = await insertPackage(t.db, { nameEn: 'Gamma', nameAr: 'جاما' });
    const order = async (userId: string, orderStatus: string, activationStatus: string, halalas: number) => {
      const orderId = randomUUID();
      const itemId = randomUUID();
      await t.db.query(
        `insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
         values ($1, $2, $3, $4, $5, 'SAR', now(), now())`,
        [orderId, userId, companyId, orderStatus, halalas],
      );
      await t.db.query(
        `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas) values ($1, $2, $3, $4, 1, $5)`,
        [itemId, orderId, pkg, `8996600${randomUUID().replace(/\D/g, '').slice(0, 12)}`, halalas],
      );
      await t.db.query(
        `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, $3, (select operator_id from packages where id = $4), $4, $5, $6, now(), now())`,
        [orderId, itemId, userId, pkg, `iccid-${itemId}`, activationStatus],
      );
    };
    const people: { rosterEntryId: string; userId: string }[] = [];
    for (let i = 0; i < 5; i++) people.push(await insertRosterEntry(t.db, companyId));
    await order(people[0].userId, 'paid', 'activated', 8025); // drawn, active line
    await order(people[1].userId, 'completed', 'in_progress', 8000); // drawn, alive but not activated yet
    await order(people[2].userId, 'paid', 'failed', 8000); // not drawn
    await order(people[3].userId, 'pending_payment', 'pending', 8000); // not paid
    // Seats consumed with the mint-time price: people 2 (failed activation) and 3 (unpaid) have no live charge.
    const now = t.clock().getTime();
    for (const [i, p] of people.entries()) {
      await t.db.query(`update roster_entries set unit_price_halalas = 8000 where id = $1`, [p.rosterEntryId]);
      if (i === 4) continue; // no link at all: nothing committed
      await t.db.query(
        `insert into invitation_links (id, token_hash, user_id, company_id, roster_entry_id, status, expires_at, created_at, updated_at)
         values (gen_random_uuid(), md5(random()::text) || md5(random()::text), $1, $2, $3, 'used', $4, now(), now())`,
        [p.userId, companyId, p.rosterEntryId, new Date(now - HOUR)],
      );
    }
    const res = await balance(companyId);
    expect(res.body.data).toEqual({
      paymentMode: 'flexible',
      fundedSar: 1_000,
      drawnSar: 160.25,
      committedSar: 160,
      availableSar: 839.75,
      activeLines: [{ packageId: pkg, nameEn: 'Gamma', nameAr: 'جاما', count: 1, drawnSar: 80.25 }],
    });
  });

  it('is for View staff only', async () => {
    const noArea = await signInAs(t, 'admin');
    const res = await balance(randomUUID(), noArea.token);
    expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
  });
});
