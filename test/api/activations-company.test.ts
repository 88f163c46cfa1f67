import request from 'supertest';
import type { z } from 'zod';
import type { CreateActivationResponse } from '../../src/activations/schemas';
import type { BillingResponse } from '../../src/billing/schemas';
import { errorCodes, type ErrorCode } from '../../src/http/error-codes';
import type { Receipt } from '../../src/payments/schemas';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { DEMO, esimCode, fakeActivationRuns, seedCatalog } from '../helpers/activations';
import { fakeCompanyRuns } from '../helpers/company-routes';
import { binaryParser } from '../helpers/read-app';
import { realActivities } from '../helpers/real-activities';
import {
  activateSeat,
  linkedWithoutEntry,
  liveCharges,
  mockOperatorPackage,
  seatCompany,
  seatHolder,
  type SeatCompany,
  type SeatHolder,
} from '../helpers/company-seat';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

// Spec consumer-service "POST /activations", company branch: a company-staged person (a roster entry
// on their user) activates the assigned seat; the order lands paid with a synthetic corporate payment.
type Created = z.infer<typeof CreateActivationResponse>;
type Billing = z.infer<typeof BillingResponse>['data'];

const temporal = fakeActivationRuns();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ deps: { activationRuns: temporal.runs, companyRuns: fakeCompanyRuns(() => t.db) } });
  await seedCatalog(t.db);
});
afterAll(() => t.close());

const MODES = ['prepaid', 'flexible'] as const;

interface Rows {
  order: { user_id: string; company_id: string; status: string; total_halalas: string };
  item: { package_id: string; unit_price_halalas: string; iccid: string; quantity: number };
  activation: {
    user_id: string;
    package_id: string;
    status: string;
    identity_status: string;
    sim_type: string;
  };
  payments: {
    id: string;
    user_id: string;
    method: string;
    provider: string;
    status: string;
    amount_minor: string;
    currency: string;
    paid_at: string | null;
    receipt_number: string | null;
  }[];
}

async function rowsOf(created: Created): Promise<Rows> {
  const [order] = await t.db.query<Rows['order']>('select user_id, company_id, status, total_halalas from orders where id = $1', [
    created.orderId,
  ]);
  const [item] = await t.db.query<Rows['item']>(
    'select package_id, unit_price_halalas, iccid, quantity from order_items where order_id = $1',
    [created.orderId],
  );
  const [activation] = await t.db.query<Rows['activation']>(
    'select user_id, package_id, status, identity_status, sim_type from activations where id = $1',
    [created.activationId],
  );
  const payments = await t.db.query<Rows['payments'][number]>(
    'select id, user_id, method, provider, status, amount_minor, currency, paid_at, receipt_number from payments where order_id = $1',
    [created.orderId],
  );
  return { order, item, activation, payments };
}

const billing = async (company: SeatCompany) =>
  typed<{ data: Billing }>(await request(t.app).get('/b2b/billing').set(bearer(company.adminToken))).body.data;

describe.each(MODES)('POST /activations, company seat (%s)', (mode) => {
  let company: SeatCompany;
  beforeAll(async () => {
    company = await seatCompany(t, { mode, priceHalalas: 8_025 });
  });

  it('activates the assigned seat: order paid at the seat price, a corporate payment, the workflow started already paid', async () => {
    const person = await seatHolder(t, company, { name: `Seat ${mode}` });
    const res = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      activationId: match.any(String),
      orderId: match.any(String),
      status: 'pending',
      identityStatus: 'waiting',
      simType: 'physical',
    });

    const rows = await rowsOf(res.body);
    expect(rows.order).toEqual({ user_id: person.userId, company_id: company.companyId, status: 'paid', total_halalas: '8025' });
    expect(rows.item).toEqual({ package_id: company.packageId, unit_price_halalas: '8025', iccid: match.any(String), quantity: 1 });
    expect(rows.activation).toEqual({
      user_id: person.userId,
      package_id: company.packageId,
      status: 'pending',
      identity_status: 'waiting',
      sim_type: 'physical',
    });
    expect(rows.payments).toEqual([
      {
        id: match.any(String),
        user_id: person.userId,
        method: 'company_account',
        provider: 'company',
        status: 'completed',
        amount_minor: '8025',
        currency: 'SAR',
        paid_at: match.any(Date),
        receipt_number: match.stringMatching(/^RCP-\d{8}-[0-9A-F]{8}$/),
      },
    ]);
    expect(temporal.started).toContainEqual({
      activationId: res.body.activationId,
      userId: person.userId,
      orderId: res.body.orderId,
      simType: 'physical',
      paid: true,
      companyId: company.companyId,
      paymentId: rows.payments[0].id,
    });

    // The company's billing shows the charge with its corporate payment.
    const bill = await billing(company);
    expect(bill.charges).toContainEqual({
      date: match.any(String),
      personName: `Seat ${mode}`,
      packageName: match.any(String),
      amountSar: 80.25,
      paymentId: rows.payments[0].id,
    });
  });

  it('answers ACTIVATION_ESIM_DISABLED for an eSIM: company seats are physical only', async () => {
    const person = await seatHolder(t, company);
    const res = await activateSeat(t, person.token, { packageId: company.packageId, iccid: esimCode(), simType: 'esim' });
    expect([res.status, errorCode(res)]).toEqual([422, 'ACTIVATION_ESIM_DISABLED']);
    expect(await ordersOf(person)).toBe(0);
  });

  it('answers ACTIVATION_LINK_NOT_REDEEMED when the person never redeemed a link (one sent, revoked, or none)', async () => {
    for (const link of ['sent', 'revoked', 'none'] as const) {
      const person = await seatHolder(t, company, { link });
      const res = await activateSeat(t, person.token, { packageId: company.packageId });
      expect([link, res.status, errorCode(res)]).toEqual([link, 409, 'ACTIVATION_LINK_NOT_REDEEMED']);
      expect(await ordersOf(person)).toBe(0);
    }
  });

  it('answers ACTIVATION_PACKAGE_NOT_ON_CONTRACT with no assigned seat, or for another package', async () => {
    const unassigned = await seatHolder(t, company, { assigned: false });
    const none = await activateSeat(t, unassigned.token, { packageId: company.packageId });
    expect([none.status, errorCode(none)]).toEqual([409, 'ACTIVATION_PACKAGE_NOT_ON_CONTRACT']);

    const person = await seatHolder(t, company);
    for (const packageId of [DEMO.packages.starter, await mockOperatorPackage(t, 8_025)]) {
      const other = await activateSeat(t, person.token, { packageId });
      expect([other.status, errorCode(other)]).toEqual([409, 'ACTIVATION_PACKAGE_NOT_ON_CONTRACT']);
    }
    expect(await ordersOf(person)).toBe(0);
    expect((await activateSeat(t, person.token, { packageId: company.packageId.toUpperCase() })).status).toBe(201);
  });

  it('answers ACTIVATION_PACKAGE_NOT_ON_CONTRACT for a company user on no roster (a redeemed company link, no entry)', async () => {
    const redeemed = await linkedWithoutEntry(t, company, 'used');
    const res = await activateSeat(t, redeemed.token, { packageId: company.packageId });
    expect([res.status, errorCode(res)]).toEqual([409, 'ACTIVATION_PACKAGE_NOT_ON_CONTRACT']);
    const unredeemed = await linkedWithoutEntry(t, company, 'sent');
    const first = await activateSeat(t, unredeemed.token, { packageId: company.packageId });
    expect([first.status, errorCode(first)]).toEqual([409, 'ACTIVATION_LINK_NOT_REDEEMED']);
    expect((await ordersOf(redeemed)) + (await ordersOf(unredeemed))).toBe(0);
  });

  it('gives one seat one SIM when the person creates five at once', async () => {
    const person = await seatHolder(t, company);
    const answers = await Promise.all(Array.from({ length: 5 }, () => activateSeat(t, person.token, { packageId: company.packageId })));
    const codes = answers.map((r) => (r.status === 201 ? 201 : errorCode(r))).sort();
    expect(codes).toEqual([201, ...Array<string>(4).fill('ACTIVATION_SEAT_ALREADY_USED')].sort());
    expect(await ordersOf(person)).toBe(1);
  });

  it('answers ACTIVATION_SEAT_ALREADY_USED while the person has a pending, in-progress or activated SIM', async () => {
    const person = await seatHolder(t, company);
    const first = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    expect(first.status).toBe(201);
    for (const status of ['pending', 'in_progress', 'activated']) {
      await t.db.query('update activations set status = $2 where id = $1', [first.body.activationId, status]);
      const again = await activateSeat(t, person.token, { packageId: company.packageId });
      expect([status, again.status, errorCode(again)]).toEqual([status, 409, 'ACTIVATION_SEAT_ALREADY_USED']);
    }
    expect(await ordersOf(person)).toBe(1);
  });

  it.each(['failed', 'cancelled'])('lets a %s seat retry, charging the company once', async (ended) => {
    const solo = await seatCompany(t, { mode, priceHalalas: 5_000, fundingHalalas: 5_000, qty: 1 });
    const person = await seatHolder(t, solo);
    const first = typed<Created>(await activateSeat(t, person.token, { packageId: solo.packageId }));
    expect(first.status).toBe(201);
    await t.db.query('update activations set status = $2 where id = $1', [first.body.activationId, ended]);
    expect(await liveCharges(t, solo.companyId)).toEqual({ count: 0, halalas: 0 });

    // Flexible: the funding fits exactly one seat, so the retry passes the balance gate only because the ended charge is released.
    const retry = typed<Created>(await activateSeat(t, person.token, { packageId: solo.packageId }));
    expect(retry.status).toBe(201);
    expect(retry.body.orderId).not.toBe(first.body.orderId);
    expect(await liveCharges(t, solo.companyId)).toEqual({ count: 1, halalas: 5_000 });
    const bill = await billing(solo);
    expect(bill.charges.map((c) => [c.amountSar, c.paymentId])).toEqual([[50, (await rowsOf(retry.body)).payments[0].id]]);
    expect(bill.outstandingSar).toBe(50);
  });

  it('answers COMPANY_NOT_APPROVED when the company is no longer approved', async () => {
    const solo = await seatCompany(t, { mode });
    const person = await seatHolder(t, solo);
    await t.db.query(`update companies set status = 'suspended' where id = $1`, [solo.companyId]);
    const res = await activateSeat(t, person.token, { packageId: solo.packageId });
    expect([res.status, errorCode(res)]).toEqual([403, 'COMPANY_NOT_APPROVED']);
    expect(await ordersOf(person)).toBe(0);
  });

  it('answers ACTIVATION_PACKAGE_NOT_ON_CONTRACT when the company has no active contract', async () => {
    const solo = await seatCompany(t, { mode });
    const person = await seatHolder(t, solo);
    await t.db.query('delete from contracts where id = $1', [solo.contractId]);
    const res = await activateSeat(t, person.token, { packageId: solo.packageId });
    expect([res.status, errorCode(res)]).toEqual([409, 'ACTIVATION_PACKAGE_NOT_ON_CONTRACT']);
  });

  // Issue 20: "the rows and a pending start commit in one transaction; the API tries the start at once and answers the client either way".
  it('keeps every row, the corporate payment too, and a paid pending start when the workflow cannot start', async () => {
    const person = await seatHolder(t, company);
    temporal.state.failStart = true;
    let res: Awaited<ReturnType<typeof activateSeat>>;
    try {
      res = await activateSeat(t, person.token, { packageId: company.packageId });
    } finally {
      temporal.state.failStart = false;
    }
    expect(res.status).toBe(201);
    const created = res.body as Created;
    expect(await ordersOf(person)).toBe(1);
    const [payment] = await t.db.query<{ id: string }>(`select id from payments where user_id = $1 and status = 'completed'`, [
      person.userId,
    ]);
    const [start] = await t.db.query<{ args: unknown; started_at: unknown }>(
      'select args, started_at from workflow_starts where workflow_id = $1',
      [`activation:${created.activationId}`],
    );
    expect(start).toEqual({
      args: {
        activationId: created.activationId,
        userId: person.userId,
        orderId: created.orderId,
        simType: 'physical',
        paid: true,
        companyId: company.companyId,
        paymentId: payment.id,
      },
      started_at: null,
    });
  });
});

async function ordersOf(person: SeatHolder): Promise<number> {
  const [{ n }] = await t.db.query<{ n: string }>('select count(*) as n from orders where user_id = $1', [person.userId]);
  return Number(n);
}

describe('POST /activations, the price charged', () => {
  it.each(MODES)('%s: charges the seat price (line or mint-time snapshot), not the catalog price of today', async (mode) => {
    const company = await seatCompany(t, { mode, priceHalalas: 8_000 });
    const person = await seatHolder(t, company);
    // The catalog moves after the contract (prepaid) or after the mint (flexible): the seat keeps its price.
    await t.db.query('update packages set price_b2b_halalas = 9999, price_halalas = 12000 where id = $1', [company.packageId]);
    const res = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    expect(res.status).toBe(201);
    const rows = await rowsOf(res.body);
    expect([rows.order.total_halalas, rows.item.unit_price_halalas, rows.payments[0].amount_minor]).toEqual(['8000', '8000', '8000']);
  });
});

describe('POST /activations, flexible balance gate', () => {
  it('answers COMPANY_BALANCE_EXCEEDED when the charge exceeds funded minus drawn', async () => {
    const company = await seatCompany(t, { mode: 'flexible', priceHalalas: 8_000, fundingHalalas: 10_000 });
    const first = await seatHolder(t, company);
    expect((await activateSeat(t, first.token, { packageId: company.packageId })).status).toBe(201);
    const second = await seatHolder(t, company);
    const res = await activateSeat(t, second.token, { packageId: company.packageId });
    expect([res.status, errorCode(res)]).toEqual([409, 'COMPANY_BALANCE_EXCEEDED']);
    expect(await ordersOf(second)).toBe(0);
    expect(await liveCharges(t, company.companyId)).toEqual({ count: 1, halalas: 8_000 });
  });

  it('is exact under parallel activations: 50 redeemed seats against a balance for 10 activate exactly 10', async () => {
    const company = await seatCompany(t, { mode: 'flexible', priceHalalas: 7_350, fundingHalalas: 10 * 7_350 });
    const people: SeatHolder[] = [];
    for (let i = 0; i < 50; i++) people.push(await seatHolder(t, company, { name: `Parallel ${i}` }));

    const answers = await Promise.all(people.map((p) => activateSeat(t, p.token, { packageId: company.packageId })));
    const codes = answers.map((r) => (r.status === 201 ? 201 : errorCode(r)));
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 'COMPANY_BALANCE_EXCEEDED')).toHaveLength(40);
    expect(await liveCharges(t, company.companyId)).toEqual({ count: 10, halalas: 10 * 7_350 });

    const bill = await billing(company);
    expect([bill.outstandingSar, bill.availableSar, bill.charges.length]).toEqual([735, 0, 10]);
    expect(bill.charges.every((c) => c.paymentId !== null)).toBe(true);
  }, 60_000);
});

describe('POST /activations, company codes in both languages', () => {
  let prepaid: SeatCompany;
  let flexible: SeatCompany;
  beforeAll(async () => {
    prepaid = await seatCompany(t, { mode: 'prepaid' });
    flexible = await seatCompany(t, { mode: 'flexible', priceHalalas: 8_000, fundingHalalas: 7_999 });
  });

  const cases: [ErrorCode, () => Promise<{ token: string; packageId: string; simType?: string; iccid?: string }>][] = [
    [
      'ACTIVATION_ESIM_DISABLED',
      async () => ({ ...(await seatHolder(t, prepaid)), packageId: prepaid.packageId, simType: 'esim', iccid: esimCode() }),
    ],
    ['ACTIVATION_LINK_NOT_REDEEMED', async () => ({ ...(await seatHolder(t, prepaid, { link: 'sent' })), packageId: prepaid.packageId })],
    ['ACTIVATION_PACKAGE_NOT_ON_CONTRACT', async () => ({ ...(await seatHolder(t, prepaid)), packageId: DEMO.packages.starter })],
    ['COMPANY_BALANCE_EXCEEDED', async () => ({ ...(await seatHolder(t, flexible)), packageId: flexible.packageId })],
  ];

  it.each(cases)('%s answers in English and in Arabic', async (code, setup) => {
    for (const lang of ['en', 'ar'] as const) {
      const { token, ...body } = await setup();
      const res = await activateSeat(t, token, body, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([errorCodes[code].status, code, errorCodes[code][lang]]);
    }
  });

  it('ACTIVATION_SEAT_ALREADY_USED and COMPANY_NOT_APPROVED answer in Arabic', async () => {
    const person = await seatHolder(t, prepaid);
    expect((await activateSeat(t, person.token, { packageId: prepaid.packageId })).status).toBe(201);
    const used = await activateSeat(t, person.token, { packageId: prepaid.packageId }, 'ar');
    expect([used.status, errorOf(used).message]).toEqual([409, errorCodes.ACTIVATION_SEAT_ALREADY_USED.ar]);

    const solo = await seatCompany(t, { mode: 'prepaid' });
    const other = await seatHolder(t, solo);
    await t.db.query(`update companies set status = 'suspended' where id = $1`, [solo.companyId]);
    const res = await activateSeat(t, other.token, { packageId: solo.packageId }, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'COMPANY_NOT_APPROVED', errorCodes.COMPANY_NOT_APPROVED.ar]);
  });
});

describe('the corporate payment elsewhere', () => {
  it("is the seat holder's receipt, with the company_account method", async () => {
    const company = await seatCompany(t, { mode: 'prepaid', priceHalalas: 8_000 });
    const person = await seatHolder(t, company);
    const created = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    const [payment] = (await rowsOf(created.body)).payments;
    const res = typed<z.infer<typeof Receipt>>(await request(t.app).get(`/payments/${payment.id}/receipt`).set(bearer(person.token)));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      paymentId: payment.id,
      orderId: created.body.orderId,
      amountSar: 80,
      currency: 'SAR',
      method: 'company_account',
      status: 'completed',
      receiptNumber: payment.receipt_number,
    });
  });

  it("renders as the seat holder's PDF receipt", async () => {
    const company = await seatCompany(t, { mode: 'prepaid' });
    const person = await seatHolder(t, company);
    const created = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    const [payment] = (await rowsOf(created.body)).payments;
    const res = await request(t.app)
      .get(`/documents/payment/${payment.id}.pdf`)
      .set(bearer(person.token))
      .buffer(true)
      .parse(binaryParser as never);
    expect([res.status, res.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect((res.body as Buffer).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('is not flagged for refund when the activation fails: the charge is released instead', async () => {
    const company = await seatCompany(t, { mode: 'flexible', priceHalalas: 8_000, fundingHalalas: 8_000 });
    const person = await seatHolder(t, company);
    const created = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    const [payment] = (await rowsOf(created.body)).payments;
    const activities = realActivities(t.db, t.config);
    await activities.endActivation({ activationId: created.body.activationId, status: 'failed', reason: 'OPERATOR_REJECTED' });

    expect((await rowsOf(created.body)).activation.status).toBe('failed');
    const records = await t.db.query('select id from reconciliation_records where payment_id = $1', [payment.id]);
    expect(records).toEqual([]);
    expect(await liveCharges(t, company.companyId)).toEqual({ count: 0, halalas: 0 });
    const bill = await billing(company);
    expect([bill.charges, bill.outstandingSar, bill.availableSar]).toEqual([[], 0, 80]);
  });

  it('cannot be asked for by a payment request: company_account is not a request method', async () => {
    const company = await seatCompany(t, { mode: 'prepaid' });
    const person = await seatHolder(t, company);
    const created = typed<Created>(await activateSeat(t, person.token, { packageId: company.packageId }));
    const res = await request(t.app)
      .post('/payments/create-intent')
      .set(bearer(person.token))
      .send({ orderId: created.body.orderId, method: 'company_account', idempotencyKey: 'company-key-1' });
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
