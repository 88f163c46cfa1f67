import request from 'supertest';
import type { z } from 'zod';
import type { BillingResponse } from '../../src/billing/schemas';
import type { BalanceResponse } from '../../src/contracts/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertCharge, insertLink, insertPerson, type Person } from '../helpers/billing-fixtures';
import { insertPackage } from '../helpers/catalog';
import { insertCompany, insertUser } from '../helpers/companies';
import { companyPerson, fakeCompanyRuns, signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment } from '../helpers/contracts';
import { errorOf, typed } from '../helpers/responses';
import { rosterCaller } from '../helpers/roster';
import { atTime } from '../helpers/clock';

// Spec "Portal: contract, readiness, dashboard, billing": GET /b2b/billing and GET /b2b/billing/export.
// Contracts, payments, links, orders and activations are inserted by SQL (other issues' routes write them).
let t: TestApp;
let viewer: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: fakeCompanyRuns(() => t.db) } });
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
});
afterAll(() => t.close());

type BillingAnswer = z.infer<typeof BillingResponse>;
type Billing = BillingAnswer['data'];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const get = async <B>(path: string, token: string, lang?: string) => {
  const req = request(t.app).get(path).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<B>(await req);
};
const billing = (token: string, lang?: string) => get<BillingAnswer>('/b2b/billing', token, lang);
const halalas = (sar: number) => Math.round(sar * 100);
const sumHalalas = (b: Billing) => b.charges.reduce((s, c) => s + halalas(c.amountSar), 0);

const at = <T>(when: Date, body: () => Promise<T>) => atTime(t.clock, when, body);

const ZEROED = {
  outstandingSar: 0,
  accruedThisMonthSar: 0,
  contractTotalSar: 0,
  paidSar: 0,
  activeLines: [],
  latestPayment: null,
  payments: [],
  linesDrawn: { consumed: 0, total: 0 },
  charges: [],
};

describe('GET /b2b/billing without an active contract', () => {
  it('answers the zeroed prepaid shape when no mode is picked, to the admin and a member', async () => {
    const admin = await rosterCaller(t);
    const member = await companyPerson(t, admin.companyId, 'member');
    for (const who of [admin, member]) {
      const res = await billing(who.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { mode: 'prepaid', availableSar: null, ...ZEROED } });
    }
  });

  it('answers the zeroed flexible shape for a company that picked flexible, even with company orders on file', async () => {
    const admin = await rosterCaller(t);
    await t.db.query(`update companies set payment_mode = 'flexible' where id = $1`, [admin.companyId]);
    const person = await insertPerson(t.db, admin.companyId, 'Early Bird');
    await insertCharge(t.db, {
      companyId: admin.companyId,
      userId: person.userId,
      packageId: await insertPackage(t.db),
      amount: '10.00',
      createdAt: t.clock(),
    });
    expect((await billing(admin.token)).body).toEqual({ data: { mode: 'flexible', availableSar: 0, ...ZEROED } });
    const csv = await request(t.app).get('/b2b/billing/export').set(bearer(admin.token));
    expect(csv.text).toBe('date,person,package,amount_sar\r\n');
  });
});

/** A flexible company: funded by two payments, drawn by odd-halala charges, with rows that must not count. */
async function flexibleCompany() {
  const admin = await rosterCaller(t);
  const recorder = await insertUser(t.db, 'Nora Finance', 'admin');
  const contract = await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible', totalHalalas: 100_000 });
  const now = t.clock().getTime();
  const firstPayment = await insertContractPayment(t.db, contract.contractId, 30_001, {
    confirmedBy: recorder,
    createdAt: new Date(now - 3 * DAY).toISOString(),
  });
  const secondPayment = await insertContractPayment(t.db, contract.contractId, 70_000, { createdAt: new Date(now - DAY).toISOString() });
  const gamma = await insertPackage(t.db, { nameEn: 'Gamma', nameAr: 'جاما' });
  const delta = await insertPackage(t.db, { nameEn: 'Delta', nameAr: 'دلتا' });
  const people: Person[] = [];
  for (const name of ['Ali', 'Badr', 'Chadi', 'Dana', 'Eman', 'Fadi']) people.push(await insertPerson(t.db, admin.companyId, name));
  const charge = (i: number, packageId: string, amount: string, ageMs: number, extra: Partial<Parameters<typeof insertCharge>[1]> = {}) =>
    insertCharge(t.db, {
      companyId: admin.companyId,
      userId: people[i].userId,
      packageId,
      amount,
      createdAt: new Date(now - ageMs),
      ...extra,
    });
  const c0 = await charge(0, gamma, '33.33', 5 * HOUR, { paymentStatus: 'completed' });
  const c1 = await charge(1, gamma, '33.33', 4 * HOUR, { activationStatus: 'in_progress', orderStatus: 'completed' });
  const c2 = await charge(2, delta, '33.35', 3 * HOUR, { paymentStatus: 'failed' });
  await charge(3, gamma, '40.00', 2 * HOUR, { activationStatus: 'failed', paymentStatus: 'completed' }); // not alive: no charge
  await charge(4, gamma, '41.00', 2 * HOUR, { activationStatus: 'cancelled' }); // not alive
  await charge(5, delta, '42.00', HOUR, { orderStatus: 'pending_payment', activationStatus: 'pending' }); // not paid
  // Another company's order and a consumer order of one of the people: never this company's charges.
  const other = await insertCompany(t.db, 'approved');
  await insertCharge(t.db, { companyId: other, userId: people[0].userId, packageId: gamma, amount: '99.99', createdAt: new Date(now) });
  await insertCharge(t.db, { companyId: null, userId: people[1].userId, packageId: gamma, amount: '12.34', createdAt: new Date(now) });
  return { admin, contract, firstPayment, secondPayment, gamma, delta, charges: [c0, c1, c2] };
}

describe('GET /b2b/billing, flexible', () => {
  it('answers drawn as outstanding, funded as paid, available, active lines, payments newest first and the charges', async () => {
    const f = await flexibleCompany();
    const res = await billing(f.admin.token);
    expect(res.status).toBe(200);
    const data = res.body.data;
    const payments = [
      { id: f.secondPayment, documentName: 'proof.pdf', amountSar: 700, recordedByName: null, recordedAt: expect.any(String) as string },
      {
        id: f.firstPayment,
        documentName: 'proof.pdf',
        amountSar: 300.01,
        recordedByName: 'Nora Finance',
        recordedAt: expect.any(String) as string,
      },
    ];
    expect(data).toEqual({
      mode: 'flexible',
      outstandingSar: 100.01,
      accruedThisMonthSar: expect.any(Number) as number,
      contractTotalSar: 1_000,
      paidSar: 1_000.01,
      availableSar: 900,
      activeLines: [
        { packageId: f.delta, nameEn: 'Delta', nameAr: 'دلتا', count: 1, drawnSar: 33.35 },
        { packageId: f.gamma, nameEn: 'Gamma', nameAr: 'جاما', count: 1, drawnSar: 33.33 },
      ],
      latestPayment: payments[0],
      payments,
      linesDrawn: { consumed: 0, total: 0 },
      charges: [
        { date: expect.any(String) as string, personName: 'Chadi', packageName: 'Delta', amountSar: 33.35, paymentId: null },
        { date: expect.any(String) as string, personName: 'Badr', packageName: 'Gamma', amountSar: 33.33, paymentId: null },
        {
          date: expect.any(String) as string,
          personName: 'Ali',
          packageName: 'Gamma',
          amountSar: 33.33,
          paymentId: f.charges[0].paymentId,
        },
      ],
    });
    expect(Date.parse(data.payments[0].recordedAt)).toBeGreaterThan(Date.parse(data.payments[1].recordedAt));
    const dates = data.charges.map((c) => Date.parse(c.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(sumHalalas(data)).toBe(halalas(data.outstandingSar));
    // The same drawn total and lines as the administration's balance.
    const balance = await get<z.infer<typeof BalanceResponse>>(`/admin/contracts/company/${f.admin.companyId}/balance`, viewer.token);
    expect(balance.body.data).toMatchObject({ drawnSar: data.outstandingSar, fundedSar: data.paidSar, activeLines: data.activeLines });
    // No document bytes, whatever the language; package names stay English.
    const ar = await billing(f.admin.token, 'ar');
    expect(ar.body).toEqual(res.body);
    expect(JSON.stringify(ar.body)).not.toMatch(/JVBER|bytes|base64/i);
  });

  it('keeps the charges summing exactly to outstanding over many odd-halala charges', async () => {
    const admin = await rosterCaller(t);
    await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible', totalHalalas: 1_000 });
    const pkg = await insertPackage(t.db);
    const person = await insertPerson(t.db, admin.companyId, 'Many');
    const amounts = ['0.01', '0.07', '0.10', '0.29', '1.13', '33.33', '33.33', '33.34', '99999.99', '12.57', '0.03'];
    for (const [i, amount] of amounts.entries()) {
      await insertCharge(t.db, {
        companyId: admin.companyId,
        userId: person.userId,
        packageId: pkg,
        amount,
        createdAt: new Date(t.clock().getTime() - i * 1000),
      });
    }
    const data = (await billing(admin.token)).body.data;
    const expected = amounts.reduce((s, a) => s + Math.round(Number(a) * 100), 0);
    expect(data.charges).toHaveLength(amounts.length);
    expect(halalas(data.outstandingSar)).toBe(expected);
    expect(sumHalalas(data)).toBe(expected);
    expect(data.charges.map((c) => c.amountSar)).toEqual(amounts.map(Number));
    expect(halalas(data.availableSar ?? NaN)).toBe(-expected); // nothing paid: overdrawn by the whole
  });

  it('accrues the charges of the current UTC calendar month by the app’s clock', async () => {
    const admin = await rosterCaller(t);
    await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible' });
    const pkg = await insertPackage(t.db);
    const person = await insertPerson(t.db, admin.companyId, 'Month');
    const charge = (amount: string, iso: string) =>
      insertCharge(t.db, { companyId: admin.companyId, userId: person.userId, packageId: pkg, amount, createdAt: new Date(iso) });
    await charge('1.01', '2026-02-28T23:59:59.999Z'); // February
    await charge('2.02', '2026-03-01T00:00:00.000Z'); // first instant of March
    await charge('3.03', '2026-03-31T23:59:59.999Z'); // last instant of March
    await charge('4.04', '2026-04-01T00:00:00.000Z'); // April
    const inMarch = await at(new Date('2026-03-15T12:00:00Z'), () => billing(admin.token));
    expect(inMarch.body.data).toMatchObject({ accruedThisMonthSar: 5.05, outstandingSar: 10.1 });
    const firstOfApril = await at(new Date('2026-04-01T00:00:00Z'), () => billing(admin.token));
    expect(firstOfApril.body.data.accruedThisMonthSar).toBe(4.04);
    const lastOfFebruary = await at(new Date('2026-02-28T23:59:59.999Z'), () => billing(admin.token));
    expect(lastOfFebruary.body.data.accruedThisMonthSar).toBe(1.01);
  });
});

describe('GET /b2b/billing, prepaid', () => {
  it('answers seats drawn over the lines, the charges as outstanding, paid, no available and no lines', async () => {
    const admin = await rosterCaller(t);
    const alpha = await insertPackage(t.db, { nameEn: 'Alpha' });
    const beta = await insertPackage(t.db, { nameEn: 'Beta' });
    const contract = await insertContract(t.db, {
      companyId: admin.companyId,
      items: [
        { packageId: alpha, qty: 2, unitPriceHalalas: 4_951 },
        { packageId: beta, qty: 3, unitPriceHalalas: 10_001 },
      ],
    });
    const paymentId = await insertContractPayment(t.db, contract.contractId, contract.totalHalalas);
    const now = t.clock().getTime();
    const people: Person[] = [];
    for (const name of ['Hala', 'Ivan', 'Jana', 'Kamal']) people.push(await insertPerson(t.db, admin.companyId, name));
    const seat = (i: number, item: number, status: string, expiresIn: number) =>
      insertLink(t.db, {
        companyId: admin.companyId,
        person: people[i],
        status,
        contractItemId: contract.itemIds[item],
        createdAt: new Date(now - HOUR),
        expiresAt: new Date(now + expiresIn),
        usedAt: status === 'used' ? new Date(now - HOUR / 2) : null,
      });
    await seat(0, 0, 'used', -HOUR); // consumed for good
    await seat(1, 1, 'sent', HOUR); // live: consumed
    await seat(2, 1, 'exported', -1); // past expiry: free
    await seat(3, 0, 'revoked', HOUR); // free
    await insertCharge(t.db, {
      companyId: admin.companyId,
      userId: people[0].userId,
      packageId: alpha,
      amount: '49.51',
      createdAt: new Date(now - 10_000),
    });
    const data = (await billing(admin.token)).body.data;
    expect(data).toEqual({
      mode: 'prepaid',
      outstandingSar: 49.51,
      accruedThisMonthSar: expect.any(Number) as number,
      contractTotalSar: 399.05,
      paidSar: 399.05,
      availableSar: null,
      activeLines: [],
      latestPayment: {
        id: paymentId,
        documentName: 'proof.pdf',
        amountSar: 399.05,
        recordedByName: null,
        recordedAt: expect.any(String) as string,
      },
      payments: [data.latestPayment],
      linesDrawn: { consumed: 2, total: 5 },
      charges: [
        { date: new Date(now - 10_000).toISOString(), personName: 'Hala', packageName: 'Alpha', amountSar: 49.51, paymentId: null },
      ],
    });
    // Two hours on, the sent link is past its expiry: its seat is free again (lazy expiry by the app's clock).
    const later = await at(new Date(now + 2 * HOUR), () => billing(admin.token));
    expect(later.body.data.linesDrawn).toEqual({ consumed: 1, total: 5 });
  });
});

describe('GET /b2b/billing/export', () => {
  it('sends charges.csv: the charges’ rows in their order, exact columns and headers, audited with the count', async () => {
    const f = await flexibleCompany();
    const member = await companyPerson(t, f.admin.companyId, 'member');
    const charges = (await billing(f.admin.token)).body.data.charges;
    const res = await request(t.app).get('/b2b/billing/export').set(bearer(member.token));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=charges.csv');
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('date,person,package,amount_sar');
    expect(lines.slice(1, -1)).toEqual(charges.map((c) => `${c.date},${c.personName},${c.packageName},${c.amountSar.toFixed(2)}`));
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(1, -1)).toEqual([
      expect.stringMatching(/,Chadi,Delta,33\.35$/),
      expect.stringMatching(/,Badr,Gamma,33\.33$/),
      expect.stringMatching(/,Ali,Gamma,33\.33$/),
    ]);
    const audit = await t.db.query<{ actor_user_id: string; entity_type: string; details: unknown }>(
      `select actor_user_id, entity_type, details from audit_events where action = 'company.billing_export' and company_id = $1`,
      [f.admin.companyId],
    );
    expect(audit).toEqual([{ actor_user_id: member.userId, entity_type: 'billing', details: { count: 3 } }]);
  });

  it('neutralises a person name a spreadsheet would run as a formula', async () => {
    const admin = await rosterCaller(t);
    await insertContract(t.db, { companyId: admin.companyId, mode: 'flexible' });
    const person = await insertPerson(t.db, admin.companyId, '=HYPERLINK("x")');
    await insertCharge(t.db, {
      companyId: admin.companyId,
      userId: person.userId,
      packageId: await insertPackage(t.db, { nameEn: 'Plain' }),
      amount: '5.00',
      createdAt: t.clock(),
    });
    const res = await request(t.app).get('/b2b/billing/export').set(bearer(admin.token));
    expect(res.text.split('\r\n')[1]).toMatch(/,"'=HYPERLINK\(""x""\)",Plain,5\.00$/);
  });
});

describe('billing guards', () => {
  it.each([
    ['pending', 'COMPANY_NOT_APPROVED'],
    ['suspended', 'COMPANY_SUSPENDED'],
    ['rejected', 'COMPANY_REJECTED'],
  ] as const)('refuses a %s company with %s, in English and Arabic, on every billing route', async (status, code) => {
    const admin = await rosterCaller(t, status);
    for (const path of ['/b2b/billing', '/b2b/billing/export']) {
      for (const lang of ['en', 'ar'] as const) {
        const res = await get(path, admin.token, lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, code, errorCodes[code][lang]]);
      }
    }
    const audit = await t.db.query(`select 1 from audit_events where company_id = $1`, [admin.companyId]);
    expect(audit).toHaveLength(0);
  });

  it('refuses callers who are not company members, in both languages', async () => {
    const staff = await signInAs(t, 'super_admin');
    const noCompany = await signInAs(t, 'b2b_admin');
    for (const who of [staff, noCompany]) {
      for (const lang of ['en', 'ar'] as const) {
        const res = await get('/b2b/billing', who.token, lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN[lang]]);
      }
    }
    const anonymous = await request(t.app).get('/b2b/billing/export');
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});
