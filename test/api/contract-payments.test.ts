import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { ContractPaymentList, ContractPaymentResponse } from '../../src/contracts/schemas';
import { errorCodes, type ErrorCode } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { insertCompany, joinCompany } from '../helpers/companies';
import { signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment } from '../helpers/contracts';
import { errorOf, typed } from '../helpers/responses';
import { recordingRuns, rosterCaller } from '../helpers/roster';
import { untilWaitingOnLock } from '../helpers/db';

// Spec "Contract payment" and "Admin: contracts": POST/GET /admin/contracts/:id/payments and the proof
// download. Contracts are inserted by SQL (the quote workflow that confirms them is tested on its own).
let t: TestApp;
const { runs, readiness, signalSender } = recordingRuns(() => t.db);
let viewer: Caller;
let manager: Caller;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs, signalSender } });
  viewer = await signInAs(t, 'admin', { view: ['b2b'] });
  manager = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
  await t.db.query(`update users set name = 'Noura Al-Harbi' where id = $1`, [manager.userId]);
});
afterAll(() => t.close());

type PaymentAnswer = z.infer<typeof ContractPaymentResponse>;
type ListAnswer = z.infer<typeof ContractPaymentList>;

const PDF = Buffer.from('%PDF-1.7\n% proof\n');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const MB5 = 5 * 1024 * 1024;

let keySeq = 0;
const newKey = () => `key-${process.pid}-${++keySeq}-${randomUUID()}`;
const doc = (bytes: Buffer = PDF, mime = 'application/pdf', name = 'transfer.pdf') => ({
  name,
  mime,
  dataBase64: bytes.toString('base64'),
});
const body = (overrides: Record<string, unknown> = {}) => ({
  method: 'bank_transfer',
  amountSar: 1000,
  document: doc(),
  idempotencyKey: newKey(),
  ...overrides,
});

const post = async (contractId: string, payload: unknown, opts: { token?: string; lang?: string } = {}) => {
  const req = request(t.app)
    .post(`/admin/contracts/${contractId}/payments`)
    .set(bearer(opts.token ?? manager.token));
  if (opts.lang) req.set('Accept-Language', opts.lang);
  return typed<PaymentAnswer>(await req.send(payload as object));
};
const list = async (contractId: string, token = viewer.token) =>
  typed<ListAnswer>(await request(t.app).get(`/admin/contracts/${contractId}/payments`).set(bearer(token)));
const download = (contractId: string, paymentId: string, token = manager.token, lang = 'en') =>
  request(t.app)
    .get(`/admin/contracts/${contractId}/payments/${paymentId}/document`)
    .set(bearer(token))
    .set('Accept-Language', lang)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

const rows = async (contractId: string) =>
  t.db.query<{ id: string; amount_halalas: string; method: string; document_bytes: Buffer; idempotency_key: string }>(
    'select id, amount_halalas, method, document_bytes, idempotency_key from contract_payments where contract_id = $1 order by created_at',
    [contractId],
  );
const audits = (paymentId: string) =>
  t.db.query<{ action: string; actor_user_id: string; company_id: string; entity_type: string; details: Record<string, unknown> }>(
    `select action, actor_user_id, company_id, entity_type, details from audit_events where entity_id = $1`,
    [paymentId],
  );

async function expectCode(res: { status: number; body?: unknown }, code: ErrorCode, lang: 'en' | 'ar' = 'en') {
  expect([res.status, errorCode(res), errorOf(res).message]).toEqual([errorCodes[code].status, code, errorCodes[code][lang]]);
  return Promise.resolve();
}

/** A prepaid contract of 1,000.50 SAR (two lines) on a new company. */
async function prepaid() {
  const companyId = await insertCompany(t.db, 'approved');
  const contract = await insertContract(t.db, {
    companyId,
    items: [
      { packageId: await insertPackage(t.db), qty: 10, unitPriceHalalas: 10_000 },
      { packageId: await insertPackage(t.db), qty: 1, unitPriceHalalas: 50 },
    ],
  });
  return { companyId, ...contract };
}
async function flexible(totalHalalas = 500_000) {
  const companyId = await insertCompany(t.db, 'approved');
  return { companyId, ...(await insertContract(t.db, { companyId, mode: 'flexible', totalHalalas })) };
}

describe('POST /admin/contracts/:id/payments: prepaid', () => {
  it('refuses less than the total with CONTRACT_PAYMENT_BELOW_TOTAL (both languages) and records nothing', async () => {
    const c = await prepaid();
    for (const lang of ['en', 'ar'] as const) {
      const res = await post(c.contractId, body({ amountSar: 1000.49 }), { lang });
      await expectCode(res, 'CONTRACT_PAYMENT_BELOW_TOTAL', lang);
      expect(errorOf(res).details).toEqual({ totalSar: 1000.5 });
    }
    expect(await rows(c.contractId)).toEqual([]);
  });

  it('records the total: 201 with the payment, the stored bytes, one audit row without bytes, and the readiness signal', async () => {
    const c = await prepaid();
    const key = newKey();
    const before = readiness.length;
    const res = await post(c.contractId, body({ amountSar: 1000.5, method: 'cheque', idempotencyKey: key }));
    expect(res.status).toBe(201);
    const payment = res.body.data;
    expect(payment).toEqual({
      id: expect.any(String) as string,
      contractId: c.contractId,
      method: 'cheque',
      amountSar: 1000.5,
      documentName: 'transfer.pdf',
      documentMime: 'application/pdf',
      hasDocument: true,
      confirmedBy: manager.userId,
      confirmedByName: null,
      confirmedAt: t.clock().toISOString(),
      createdAt: t.clock().toISOString(),
    });
    const [row] = await rows(c.contractId);
    expect(row).toMatchObject({ id: payment.id, amount_halalas: '100050', method: 'cheque', idempotency_key: key });
    expect(row.document_bytes.equals(PDF)).toBe(true);
    const [audit] = await audits(payment.id);
    expect(audit).toEqual({
      action: 'company.contract_payment_recorded',
      actor_user_id: manager.userId,
      company_id: c.companyId,
      entity_type: 'contract_payment',
      details: {
        contractId: c.contractId,
        method: 'cheque',
        amountSar: 1000.5,
        documentName: 'transfer.pdf',
        documentMime: 'application/pdf',
        documentBytes: PDF.length,
      },
    });
    expect(JSON.stringify(audit)).not.toContain(PDF.toString('base64'));
    expect(readiness.slice(before)).toEqual([{ companyId: c.companyId, gate: 'paymentSatisfied' }]);
  });

  // "Prepaid requires amountSar at least the contract total (service check, no partial records)": every
  // payment of at least the total is a record, the first or a later one; only a partial one is refused.
  it('records a second payment of at least the total (201), still refuses a partial one; lists and billing show both', async () => {
    const c = await prepaid();
    const first = await post(c.contractId, body({ amountSar: 2000, idempotencyKey: newKey() }));
    t.clock.advance(1000);
    const second = await post(c.contractId, body({ amountSar: 1000.5, method: 'cheque', idempotencyKey: newKey() }));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.data).toMatchObject({ contractId: c.contractId, method: 'cheque', amountSar: 1000.5 });
    await expectCode(await post(c.contractId, body({ amountSar: 1000.49 })), 'CONTRACT_PAYMENT_BELOW_TOTAL');
    expect((await rows(c.contractId)).map((r) => r.amount_halalas)).toEqual(['200000', '100050']);

    // The admin list and the company's billing: both, newest first; paidSar their sum.
    expect((await list(c.contractId)).body.data.map((p) => [p.id, p.amountSar])).toEqual([
      [second.body.data.id, 1000.5],
      [first.body.data.id, 2000],
    ]);
    const portal = await signInAs(t, 'b2b_admin');
    await joinCompany(t.db, c.companyId, portal.userId, 'admin');
    const billing = (await request(t.app).get('/b2b/billing').set(bearer(portal.token))).body as {
      data: {
        mode: string;
        contractTotalSar: number;
        paidSar: number;
        latestPayment: { id: string };
        payments: { id: string; amountSar: number }[];
      };
    };
    expect(billing.data).toMatchObject({
      mode: 'prepaid',
      contractTotalSar: 1000.5,
      paidSar: 3000.5,
      latestPayment: { id: second.body.data.id },
    });
    expect(billing.data.payments.map((p) => [p.id, p.amountSar])).toEqual([
      [second.body.data.id, 1000.5],
      [first.body.data.id, 2000],
    ]);
    // Readiness sums them too (at least the total either way); the balance stays zeros for prepaid, as the spec says.
    const read = async (path: string, token: string) =>
      typed<{ data: unknown }>(await request(t.app).get(path).set(bearer(token))).body.data;
    expect(await read('/b2b/readiness', portal.token)).toMatchObject({
      contractConfirmed: true,
      paymentSatisfied: true,
    });
    expect(await read(`/admin/contracts/company/${c.companyId}/balance`, viewer.token)).toMatchObject({
      paymentMode: 'prepaid',
      fundedSar: 0,
    });
  });
});

describe('POST /admin/contracts/:id/payments: flexible', () => {
  it('accepts any positive amount, the first funding and every top-up', async () => {
    const c = await flexible(500_000);
    for (const amountSar of [0.01, 99_999_999.99, 12.3]) {
      t.clock.advance(1000);
      const res = await post(c.contractId, body({ amountSar }));
      expect([res.status, res.body.data.amountSar]).toEqual([201, amountSar]);
    }
    expect((await rows(c.contractId)).map((r) => r.amount_halalas)).toEqual(['1', '9999999999', '1230']);
  });

  it('accepts png and jpeg proofs and keeps their mime', async () => {
    const c = await flexible();
    expect((await post(c.contractId, body({ document: doc(PNG, 'image/png', 'slip.png') }))).body.data.documentMime).toBe('image/png');
    expect((await post(c.contractId, body({ document: doc(JPEG, 'image/jpeg', 'slip.jpg') }))).body.data.documentMime).toBe('image/jpeg');
  });
});

describe('POST /admin/contracts/:id/payments: idempotency', () => {
  it('replays the same key, method and amount as the original (201, same row, no second audit row or signal)', async () => {
    const c = await flexible();
    const payload = body({ amountSar: 250 });
    const first = await post(c.contractId, payload);
    const signals = readiness.length;
    // A replay with another document still answers the original: only method and amount are compared.
    const again = await post(c.contractId, { ...payload, document: doc(PNG, 'image/png', 'other.png') });
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(await rows(c.contractId)).toHaveLength(1);
    expect(await audits(first.body.data.id)).toHaveLength(1);
    expect(readiness.length).toBe(signals);
  });

  it('answers CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT for the same key with another amount or method (both languages)', async () => {
    const c = await flexible();
    const payload = body({ amountSar: 250 });
    const first = await post(c.contractId, payload);
    const conflicts = [
      { ...payload, amountSar: 250.01 },
      { ...payload, method: 'cheque' },
    ];
    for (const [i, conflict] of conflicts.entries()) {
      const lang = i === 0 ? 'en' : 'ar';
      const res = await post(c.contractId, conflict, { lang });
      await expectCode(res, 'CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT', lang);
      expect(errorOf(res).details).toEqual({ existingPaymentId: first.body.data.id, method: 'bank_transfer', amountSar: 250 });
    }
    expect(await rows(c.contractId)).toHaveLength(1);
  });

  it('replays a prepaid key as the original after the total was paid (201, no second record)', async () => {
    const c = await prepaid();
    const payload = body({ amountSar: 1000.5 });
    const first = await post(c.contractId, payload);
    expect((await post(c.contractId, payload)).body).toEqual(first.body);
    expect(await rows(c.contractId)).toHaveLength(1);
  });

  it('keys are per contract: the same key on another contract records a new payment', async () => {
    const [a, b] = [await flexible(), await flexible()];
    const payload = body();
    const [ra, rb] = [await post(a.contractId, payload), await post(b.contractId, payload)];
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.data.id).not.toBe(rb.body.data.id);
  });

  it('records one row for 20 parallel posts of one key; every answer is that row', async () => {
    const c = await flexible();
    const payload = body({ amountSar: 77.77 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(c.contractId, payload)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const ids = new Set(answers.map((a) => a.body.data.id));
    expect(ids.size).toBe(1);
    const stored = await rows(c.contractId);
    expect(stored.map((r) => r.id)).toEqual([...ids]);
    expect(await audits(stored[0].id)).toHaveLength(1);
  });

  // Deterministic race on one key: another transaction holds the key uncommitted when the request
  // looks, so the request's insert waits on the unique constraint and then finds the winner's row.
  it.each([
    ['the same method and amount: the winner’s row (201)', 250, 201],
    ['another amount: CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT', 251, 409],
  ])('a key taken by a concurrent transaction, with %s', async (_label, amountSar, status) => {
    const c = await flexible();
    const key = newKey();
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      const [winner] = (
        await client.query<{ id: string }>(
          `insert into contract_payments (id, contract_id, method, amount_halalas, document_name, document_mime, document_bytes,
                                          idempotency_key, confirmed_by, confirmed_at, created_at)
           values (gen_random_uuid(), $1, 'bank_transfer', 25000, 'w.pdf', 'application/pdf', $2, $3, null, now(), now()) returning id`,
          [c.contractId, PDF, key],
        )
      ).rows;
      const pending = post(c.contractId, body({ amountSar, idempotencyKey: key }));
      // The request is now waiting on the key's unique index (it cannot see the uncommitted row).
      await untilWaitingOnLock(t.db, '%insert into contract_payments as p%');
      await client.query('commit');
      const res = await pending;
      expect(res.status).toBe(status);
      if (status === 201) expect(res.body.data.id).toBe(winner.id);
      else expect(errorOf(res).details).toEqual({ existingPaymentId: winner.id, method: 'bank_transfer', amountSar: 250 });
    } finally {
      client.release();
    }
    expect(await rows(c.contractId)).toHaveLength(1);
  });

  it('records every one of 20 parallel prepaid posts of different keys, each at least the total', async () => {
    const c = await prepaid();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(c.contractId, body({ amountSar: 1000.5 }))));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(await rows(c.contractId)).toHaveLength(20);
  });
});

describe('POST /admin/contracts/:id/payments: refusals', () => {
  it('answers CONTRACT_NOT_FOUND for an unknown contract id (both languages), VALIDATION_ERROR for a malformed one', async () => {
    await expectCode(await post(randomUUID(), body()), 'CONTRACT_NOT_FOUND');
    await expectCode(await post(randomUUID(), body(), { lang: 'ar' }), 'CONTRACT_NOT_FOUND', 'ar');
    const malformed = await post('nope', body());
    expect([malformed.status, errorOf(malformed).code, errorOf(malformed).details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [{ path: 'id', message: 'Must be a UUID' }],
    ]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['no document', { document: undefined }],
    ['no idempotency key', { idempotencyKey: undefined }],
    ['a 7-character key', { idempotencyKey: 'k'.repeat(7) }],
    ['a 129-character key', { idempotencyKey: 'k'.repeat(129) }],
    ['an unknown method', { method: 'cash' }],
    ['a zero amount', { amountSar: 0 }],
    ['a negative amount', { amountSar: -5 }],
    ['three decimals', { amountSar: 10.005 }],
    // Issue 20: more than two decimals is refused whatever the size, never rounded to a neighbour.
    ['5000.005 (three decimals on a large amount)', { amountSar: 5000.005 }],
    ['0.001 (positive, but three decimals)', { amountSar: 0.001 }],
    ['1e-7 (a fraction of a halala)', { amountSar: 1e-7 }],
    ['1e-8 (was recorded as 0)', { amountSar: 1e-8 }],
    ['0.30000000000000004 (0.1 + 0.2 as a client computed it)', { amountSar: 0.1 + 0.2 }],
    ['more than 99999999.99', { amountSar: 100_000_000 }],
    ['an amount as a string', { amountSar: '100' }],
    ['an empty document name', { document: { ...doc(), name: '' } }],
    ['a blank document name', { document: { ...doc(), name: '   ' } }],
    ['a 256-character document name', { document: { ...doc(), name: 'é'.repeat(252) + '.pdf' } }],
    ['empty data', { document: { ...doc(), dataBase64: '' } }],
    [
      'base64 with a line break',
      { document: { ...doc(), dataBase64: `${PDF.toString('base64').slice(0, 8)}\n${PDF.toString('base64').slice(8)}` } },
    ],
    ['base64 without its padding', { document: { ...doc(), dataBase64: Buffer.from('%PDF-').toString('base64').replace(/=+$/, '') } }],
    ['base64 with non-zero bits after the last byte', { document: { ...doc(), dataBase64: 'JVBERi1=' } }],
    ['base64url characters', { document: { ...doc(), dataBase64: '%PDF-?>?'.replace(/./g, '_') } }],
    ['an extra document field', { document: { ...doc(), size: 1 } }],
    ['an extra body field', { note: 'x' }],
  ])('answers VALIDATION_ERROR for %s', async (_label, overrides) => {
    const c = await flexible();
    const res = await post(c.contractId, body(overrides));
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await rows(c.contractId)).toEqual([]);
  });

  it('accepts a 255-character Unicode name (characters, not bytes or UTF-16 units)', async () => {
    const c = await flexible();
    const name = '𝒫'.repeat(251) + '.pdf';
    const res = await post(c.contractId, body({ document: doc(PDF, 'application/pdf', name) }));
    expect([res.status, res.body.data.documentName]).toEqual([201, name]);
  });

  it('answers CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME for another mime, or bytes that are not of the declared kind (both languages)', async () => {
    const c = await flexible();
    const cases = [doc(PDF, 'text/html'), doc(PDF, 'image/png'), doc(Buffer.from('<html>'), 'application/pdf'), doc(PNG, 'image/jpeg')];
    for (const [i, document] of cases.entries()) {
      const lang = i % 2 === 0 ? 'en' : 'ar';
      await expectCode(await post(c.contractId, body({ document }), { lang }), 'CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME', lang);
    }
    expect(await rows(c.contractId)).toEqual([]);
  });

  it('takes exactly 5 MB decoded; one byte more is CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE (both languages)', async () => {
    const c = await flexible();
    const big = Buffer.alloc(MB5, 0x20);
    PDF.copy(big);
    const ok = await post(c.contractId, body({ document: doc(big) }));
    expect(ok.status).toBe(201);
    const [stored] = await rows(c.contractId);
    expect(stored.document_bytes.equals(big)).toBe(true);
    const over = Buffer.concat([big, Buffer.from(' ')]);
    for (const lang of ['en', 'ar'] as const) {
      const res = await post(c.contractId, body({ document: doc(over) }), { lang });
      await expectCode(res, 'CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE', lang);
      expect(errorOf(res).details).toEqual({ maxBytes: MB5, bytes: MB5 + 1 });
    }
    expect(await rows(c.contractId)).toHaveLength(1);
  });

  it('refuses a body over the route’s 7 MB limit with VALIDATION_ERROR', async () => {
    const c = await flexible();
    const huge = Buffer.alloc(5_600_000, 0x20); // 7,466,668 base64 characters: over 7 MB
    PDF.copy(huge);
    const res = await post(c.contractId, body({ document: doc(huge) }));
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<{ message: string }[]>(res).details).toEqual([{ path: '', message: 'Request body is too large' }]);
  });

  it('keeps the 100kb limit on every other route: a 1 MB body elsewhere is still refused', async () => {
    const company = await rosterCaller(t);
    const filler = 'x'.repeat(1024 * 1024);
    const patch = await request(t.app)
      .patch('/b2b/company/payment-mode')
      .set(bearer(company.token))
      .send({ paymentMode: 'prepaid', filler });
    const status = await request(t.app)
      .post(`/admin/companies/${company.companyId}/status`)
      .set(bearer(manager.token))
      .send({ action: 'suspend', reason: filler });
    for (const res of [patch, status]) {
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(errorOf<{ message: string }[]>(res).details).toEqual([{ path: '', message: 'Request body is too large' }]);
    }
  });

  it('is for Manage staff: View staff, staff without the area and company admins get AUTH_FORBIDDEN (both languages)', async () => {
    const c = await flexible();
    const noArea = await signInAs(t, 'admin');
    const company = await rosterCaller(t);
    for (const [i, token] of [viewer.token, noArea.token, company.token].entries()) {
      const lang = i % 2 === 0 ? 'en' : 'ar';
      await expectCode(await post(c.contractId, body(), { token, lang }), 'AUTH_FORBIDDEN', lang);
    }
    const root = await signInAs(t, 'super_admin');
    expect((await post(c.contractId, body(), { token: root.token })).status).toBe(201);
  });
});

describe('GET /admin/contracts/:id/payments', () => {
  it('lists newest first with the recording administrator’s name (null once unknown); View is enough', async () => {
    const c = await flexible();
    const gone = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const older = await insertContractPayment(t.db, c.contractId, 1_000, { confirmedBy: gone.userId, createdAt: '2026-01-01T00:00:00Z' });
    await t.db.query('delete from sessions where user_id = $1', [gone.userId]);
    await t.db.query('delete from users where id = $1', [gone.userId]);
    const newer = await post(c.contractId, body({ amountSar: 20 }));
    const res = await list(c.contractId);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p) => [p.id, p.confirmedBy, p.confirmedByName])).toEqual([
      [newer.body.data.id, manager.userId, 'Noura Al-Harbi'],
      [older, null, null],
    ]);
    expect(res.body.data[0]).toEqual({ ...newer.body.data, confirmedByName: 'Noura Al-Harbi' });
  });

  it('answers [] for a contract without payments, an unknown id and a malformed one', async () => {
    const c = await flexible();
    for (const id of [c.contractId, randomUUID(), 'nope']) expect((await list(id)).body).toEqual({ data: [] });
  });

  it('is for View staff only', async () => {
    const noArea = await signInAs(t, 'admin');
    const res = await list(randomUUID(), noArea.token);
    expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
  });
});

describe('GET /admin/contracts/:id/payments/:paymentId/document', () => {
  it('returns the stored bytes with the stored mime and an attachment header with ASCII and RFC 5987 names', async () => {
    const c = await flexible();
    const cases = [
      {
        bytes: PDF,
        mime: 'application/pdf',
        name: 'إيصال تحويل.pdf',
        disposition:
          'attachment; filename="_ _.pdf"; filename*=UTF-8\'\'%D8%A5%D9%8A%D8%B5%D8%A7%D9%84%20%D8%AA%D8%AD%D9%88%D9%8A%D9%84.pdf',
      },
      {
        bytes: PNG,
        mime: 'image/png',
        name: 'reçu "final".png',
        disposition: 'attachment; filename="recu _final_.png"; filename*=UTF-8\'\'re%C3%A7u%20%22final%22.png',
      },
      { bytes: JPEG, mime: 'image/jpeg', name: 'slip.jpg', disposition: "attachment; filename=slip.jpg; filename*=UTF-8''slip.jpg" },
    ];
    for (const k of cases) {
      const recorded = await post(c.contractId, body({ document: doc(k.bytes, k.mime, k.name) }));
      const res = await download(c.contractId, recorded.body.data.id);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(k.mime);
      expect(res.headers['content-disposition']).toBe(k.disposition);
      expect((res.body as Buffer).equals(k.bytes)).toBe(true);
    }
  });

  it('answers CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND for unknown or mismatched ids (both languages), VALIDATION_ERROR for malformed ones', async () => {
    const [a, b] = [await flexible(), await flexible()];
    const paid = (await post(a.contractId, body())).body.data.id;
    const pairs = [
      [b.contractId, paid],
      [a.contractId, randomUUID()],
      [randomUUID(), paid],
    ];
    const parsed = (res: { status: number; body: unknown }) => ({
      status: res.status,
      body: JSON.parse((res.body as Buffer).toString('utf8')) as { error: { code: string; details?: unknown } },
    });
    for (const [i, [contractId, paymentId]] of pairs.entries()) {
      const lang = i % 2 === 0 ? 'en' : 'ar';
      await expectCode(parsed(await download(contractId, paymentId, manager.token, lang)), 'CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND', lang);
    }
    for (const [contractId, paymentId, path] of [
      ['nope', paid, 'id'],
      [a.contractId, 'nope', 'paymentId'],
    ]) {
      const res = parsed(await download(contractId, paymentId));
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
        400,
        'VALIDATION_ERROR',
        [{ path, message: 'Must be a UUID' }],
      ]);
    }
  });

  it('needs Manage: View staff get AUTH_FORBIDDEN', async () => {
    const c = await flexible();
    const paid = (await post(c.contractId, body())).body.data.id;
    const res = await download(c.contractId, paid, viewer.token);
    expect([res.status, (JSON.parse((res.body as Buffer).toString('utf8')) as { error: { code: string } }).error.code]).toEqual([
      403,
      'AUTH_FORBIDDEN',
    ]);
  });
});
