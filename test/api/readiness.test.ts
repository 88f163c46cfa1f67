import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { ReadinessResponse } from '../../src/companies/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { companyPerson, signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment, insertRosterEntry } from '../helpers/contracts';
import { errorOf, typed } from '../helpers/responses';
import { recordingRuns, rosterCaller } from '../helpers/roster';

// Spec "Portal: contract, readiness" (GET /b2b/readiness) and the admin copy
// (GET /admin/contracts/company/:companyId/readiness): the three gates and canSendLinks.
let t: TestApp;
const { runs, readiness: signals, signalSender } = recordingRuns(() => t.db);
let viewer: Caller;
let manager: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs, signalSender } });
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
  manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
});
afterAll(() => t.close());

type ReadinessAnswer = z.infer<typeof ReadinessResponse>;
const NONE = { contractConfirmed: false, paymentSatisfied: false, rosterStaged: false, canSendLinks: false };

const portal = async (token: string, lang?: string) => {
  const req = request(t.app).get('/b2b/readiness').set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<ReadinessAnswer>(await req);
};
const admin = async (companyId: string, token = viewer.token) =>
  typed<ReadinessAnswer>(await request(t.app).get(`/admin/contracts/company/${companyId}/readiness`).set(bearer(token)));

/** Both routes agree; returns the gates. */
async function gates(caller: Caller & { companyId: string }) {
  const [mine, staff] = [await portal(caller.token), await admin(caller.companyId)];
  expect([mine.status, staff.status]).toEqual([200, 200]);
  expect(staff.body).toEqual(mine.body);
  return mine.body.data;
}

const pay = (contractId: string, amountSar: number) =>
  request(t.app)
    .post(`/admin/contracts/${contractId}/payments`)
    .set(bearer(manager.token))
    .send({
      method: 'bank_transfer',
      amountSar,
      document: { name: 'proof.pdf', mime: 'application/pdf', dataBase64: Buffer.from('%PDF-1.4').toString('base64') },
      idempotencyKey: randomUUID(),
    });

describe('readiness', () => {
  it('is all false for a new company, to its admin and a member', async () => {
    const company = await rosterCaller(t);
    const member = await companyPerson(t, company.companyId, 'member');
    expect(await gates(company)).toEqual(NONE);
    expect((await portal(member.token)).body).toEqual({ data: NONE });
  });

  it('prepaid: contract, then roster, then a payment of the total flips every gate and canSendLinks (the payment signals the run)', async () => {
    const company = await rosterCaller(t);
    const contract = await insertContract(t.db, {
      companyId: company.companyId,
      items: [{ packageId: await insertPackage(t.db), qty: 4, unitPriceHalalas: 2_500 }],
    });
    expect(await gates(company)).toEqual({ ...NONE, contractConfirmed: true });
    await insertRosterEntry(t.db, company.companyId);
    expect(await gates(company)).toEqual({ ...NONE, contractConfirmed: true, rosterStaged: true });
    // A payment below the total is refused (no partial records), so the gate stays closed.
    expect(errorCode(await pay(contract.contractId, 99.99))).toBe('CONTRACT_PAYMENT_BELOW_TOTAL');
    expect((await gates(company)).paymentSatisfied).toBe(false);
    const before = signals.length;
    expect((await pay(contract.contractId, 100)).status).toBe(201);
    expect(signals.slice(before)).toEqual([{ companyId: company.companyId, gate: 'paymentSatisfied' }]);
    expect(await gates(company)).toEqual({ contractConfirmed: true, paymentSatisfied: true, rosterStaged: true, canSendLinks: true });
  });

  it('flexible: payments sum to the declared funding (same rule), top-up by top-up', async () => {
    const company = await rosterCaller(t);
    await insertRosterEntry(t.db, company.companyId);
    const contract = await insertContract(t.db, { companyId: company.companyId, mode: 'flexible', totalHalalas: 100_000 });
    expect(await gates(company)).toEqual({ ...NONE, contractConfirmed: true, rosterStaged: true });
    expect((await pay(contract.contractId, 999.99)).status).toBe(201);
    expect((await gates(company)).paymentSatisfied).toBe(false);
    expect((await pay(contract.contractId, 0.01)).status).toBe(201);
    expect(await gates(company)).toEqual({ contractConfirmed: true, paymentSatisfied: true, rosterStaged: true, canSendLinks: true });
  });

  it('counts payments of the active contract only', async () => {
    const company = await rosterCaller(t);
    // Not `active` (the only status the schema allows today), so the check constraint is dropped for this row's sake.
    await t.db.query('alter table contracts drop constraint if exists contracts_status_check');
    try {
      const old = await insertContract(t.db, { companyId: company.companyId, mode: 'flexible', totalHalalas: 100, status: 'closed' });
      await insertContractPayment(t.db, old.contractId, 1_000_000);
      expect(await gates(company)).toEqual(NONE);
      await insertContract(t.db, { companyId: company.companyId, mode: 'flexible', totalHalalas: 100 });
      expect(await gates(company)).toEqual({ ...NONE, contractConfirmed: true });
    } finally {
      await t.db.query(`delete from contracts where status <> 'active'`);
      await t.db.query(`alter table contracts add constraint contracts_status_check check (status in ('active'))`);
    }
  });

  it('admin: an unknown or malformed company id answers all false', async () => {
    for (const id of [randomUUID(), 'nope']) expect((await admin(id)).body).toEqual({ data: NONE });
  });

  it('admin: View staff only (AUTH_FORBIDDEN for no area and for company users)', async () => {
    const noArea = await signInAs(t, 'admin');
    const company = await rosterCaller(t);
    for (const token of [noArea.token, company.token]) {
      const res = await admin(company.companyId, token);
      expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
    }
  });

  it.each([
    ['pending', 'COMPANY_NOT_APPROVED'],
    ['suspended', 'COMPANY_SUSPENDED'],
    ['rejected', 'COMPANY_REJECTED'],
  ] as const)('portal: a %s company gets %s, in English and Arabic', async (status, code) => {
    const company = await rosterCaller(t, status, 'member');
    for (const lang of ['en', 'ar'] as const) {
      const res = await portal(company.token, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, code, errorCodes[code][lang]]);
    }
  });
});
