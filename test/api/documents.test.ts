import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createSessionCache } from '../../src/auth/session-cache';
import { createSessionService } from '../../src/auth/sessions';
import { contractPaymentReceiptNumber } from '../../src/documents/contract-payment';
import { documentRoutes } from '../../src/documents/routes';
import { documentTypes } from '../../src/documents/registry';
import type { ErrorCode } from '../../src/http/error-codes';
import { errorMessage } from '../../src/http/errors';
import { createLogger } from '../../src/http/logger';
import { createRouteTestApp } from '../helpers/api';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { insertCompany, joinCompany } from '../helpers/companies';
import { signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment } from '../helpers/contracts';
import { fakePaymentTemporal, newKey } from '../helpers/payments';
import { binaryParser, insertActivation, seedCatalog } from '../helpers/read-app';
import { errorOf } from '../helpers/responses';
import { signUpSuperAdmin, type SignedIn } from '../helpers/staff';

// GET /documents/:type/:entityId.pdf on the real app and database: who may read which receipt, the
// DOCUMENT_* codes in both languages, and every figure of the PDF read back as text (pdf-parse).

let t: TestApp;
let root: SignedIn;

beforeAll(async () => {
  const temporal = fakePaymentTemporal();
  t = await createTestApp({ deps: { activationRuns: temporal.activationRuns, paymentRuns: temporal.paymentRuns } });
  await seedCatalog(t);
  root = await signUpSuperAdmin(t, 'Root');
});
afterAll(() => t.close());

const FULL_SETTINGS = {
  legalNameEn: 'Acme Telecom Trading Co.',
  legalNameAr: 'شركة أكمي للاتصالات',
  vatNumber: '300123456700003',
  crNumber: '1010123456',
  addressEn: 'King Fahd Road 1234, Riyadh 12211',
  addressAr: 'طريق الملك فهد 1234، الرياض 12211',
  supportEmail: 'support@acme.example',
  supportPhone: '+966500000001',
  showVatOnReceipts: true,
  vatRatePercent: 15,
};

async function saveSettings(body: object): Promise<void> {
  const res = await request(t.app).patch('/admin/settings/organization').set(bearer(root.token)).send(body);
  expect(res.status).toBe(200);
}
const clearSettings = () => t.db.query(`delete from settings where key = 'organization'`);

/** PDF answers as a Buffer, error envelopes as JSON. */
function pdfOrJson(
  res: Parameters<typeof binaryParser>[0] & { headers: Record<string, string> },
  done: (err: Error | null, body: unknown) => void,
) {
  binaryParser(res, (err, bytes) => done(err, /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(bytes.toString('utf8')) : bytes));
}

const get = (path: string, token?: string, lang?: string) => {
  const req = request(t.app)
    .get(path)
    .buffer(true)
    .parse(pdfOrJson as never);
  if (token) req.set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return req;
};

/** The PDF's text as pdf-parse reads it. pdf.js needs dynamic import(), which Jest's VM refuses: it runs in a plain node child. */
function pdfText(pdf: Buffer): Promise<string> {
  const script = `const { PDFParse } = require('pdf-parse'); const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', async () => process.stdout.write((await new PDFParse({ data: Buffer.concat(chunks) }).getText()).text));`;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['-e', script], { cwd: process.cwd(), maxBuffer: 10_000_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`pdf-parse failed: ${stderr}`, { cause: err })) : resolve(stdout),
    );
    child.stdin!.end(pdf);
  });
}

/**
 * Arabic comes back from the PDF in visual order, and Noto Naskh draws dotted letters as a dotless
 * skeleton plus dot marks, so each glyph maps back to the first letter it was drawn for (ي may read as
 * ت). Arabic is compared loosely: per line, the sorted multiset of letter skeletons (dots ignored).
 */
const SKELETON: Record<string, string> = Object.fromEntries(
  [
    ['ٮ', 'بتثنيىئ'],
    ['ح', 'جحخ'],
    ['د', 'دذ'],
    ['ر', 'رز'],
    ['س', 'سش'],
    ['ص', 'صض'],
    ['ط', 'طظ'],
    ['ع', 'عغ'],
    ['ڡ', 'فق'],
    ['ا', 'اأإآ'],
    ['ه', 'هة'],
    ['و', 'وؤ'],
  ].flatMap(([skeleton, letters]) => [...letters].map((l) => [l, skeleton])),
);
const arabicLetters = (s: string) =>
  [...s]
    .filter((c) => /\p{Script=Arabic}/u.test(c) && /\p{L}/u.test(c))
    .map((c) => SKELETON[c] ?? c)
    .sort()
    .join('');
/** Some line of the text holds exactly the Arabic letters of `phrase` (whatever Latin it also holds). */
const hasArabicLine = (text: string, phrase: string) => text.split('\n').some((line) => arabicLetters(line) === arabicLetters(phrase));

/** What every receipt carries, with or without settings. */
function expectReceiptFrame(text: string): void {
  expect(text).toContain('Payment Receipt');
  expect(hasArabicLine(text, 'إيصال دفع')).toBe(true);
  expect(text).toContain('This is a payment receipt, not a tax invoice.');
  expect(hasArabicLine(text, 'هذا إيصال دفع وليس فاتورة ضريبية.')).toBe(true);
}

function expectHeaderAndFooter(text: string, s: typeof FULL_SETTINGS): void {
  expect(text).toContain(s.legalNameEn);
  expect(hasArabicLine(text, s.legalNameAr)).toBe(true);
  expect(text).toContain(`CR No.: ${s.crNumber}`);
  expect(text).toContain(`VAT No.: ${s.vatNumber}`);
  expect(text).toContain(s.addressEn);
  expect(text).toContain(`Support: ${s.supportEmail} | ${s.supportPhone}`);
  expect(hasArabicLine(text, 'الدعم')).toBe(true);
  // Numbers print in both columns, and in the Arabic one their digits keep their order (bidi runs, not one reversed run).
  for (const figure of [s.crNumber, s.vatNumber, s.supportPhone, s.supportEmail]) expect(text.split(figure)).toHaveLength(3);
}

function expectNoHeaderOrFooter(text: string): void {
  for (const absent of [FULL_SETTINGS.legalNameEn, 'CR No.:', 'VAT No.:', FULL_SETTINGS.addressEn, 'Support', FULL_SETTINGS.supportEmail]) {
    expect(text).not.toContain(absent);
  }
}

function expectPdf(res: request.Response, filename: string): Buffer {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.headers['content-disposition']).toBe(`attachment; filename=${filename}; filename*=UTF-8''${filename}`);
  expect(res.headers['cache-control']).toBe('private, no-store');
  const pdf = res.body as Buffer;
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  return pdf;
}

async function expectError(res: request.Response | Promise<request.Response>, status: number, code: ErrorCode, lang: 'en' | 'ar' = 'en') {
  const answer = await res;
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(errorOf(answer)).toEqual({ code, message: errorMessage(code, lang) });
}

/** A consumer payment made through POST /payments/create-intent (mock provider: completed at once). */
async function paidConsumerPayment(owner: { token: string; userId: string }, totalAmountSar: string) {
  const { orderId } = await insertActivation(t, { userId: owner.userId, order: { status: 'pending_payment', totalAmountSar } });
  const pay = await request(t.app)
    .post('/payments/create-intent')
    .set(bearer(owner.token))
    .send({ orderId, method: 'local_debit', idempotencyKey: newKey('doc') });
  expect(pay.status).toBe(201);
  const paymentId = (pay.body as { paymentId: string }).paymentId;
  const [row] = await t.db.query<{ receipt_number: string; paid_at: string }>(
    `select receipt_number, to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC' as paid_at from payments where id = $1`,
    [paymentId],
  );
  return { paymentId, orderId, receiptNumber: row.receipt_number, paidAt: row.paid_at };
}

describe('consumer payment receipt (payment)', () => {
  let owner: { token: string; userId: string };
  let payment: Awaited<ReturnType<typeof paidConsumerPayment>>;

  beforeAll(async () => {
    owner = await signUp(t);
    payment = await paidConsumerPayment(owner, '1234.50');
  });
  afterEach(clearSettings);

  it('renders every figure, the seller header and footer, and the VAT included in the total', async () => {
    await saveSettings(FULL_SETTINGS);
    const pdf = expectPdf(await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token), `receipt-${payment.receiptNumber}.pdf`);
    const text = await pdfText(pdf);
    expectReceiptFrame(text);
    expectHeaderAndFooter(text, FULL_SETTINGS);
    for (const figure of [
      payment.receiptNumber,
      payment.paymentId,
      payment.orderId,
      payment.paidAt,
      'Debit card',
      'Paid',
      '1,234.50 SAR',
      'VAT included (15%)',
      '161.02 SAR', // 123450 × 15 / 115 = 16102.17 halalas
    ]) {
      expect(text).toContain(figure);
    }
    for (const [en, ar] of [
      ['Receipt No.', 'رقم الإيصال'],
      ['Payment ID', 'معرّف الدفعة'],
      ['Order ID', 'رقم الطلب'],
      ['Date paid', 'تاريخ الدفع'],
      ['Payment method', 'طريقة الدفع'],
      ['Total', 'الإجمالي'],
      ['VAT included (15%)', 'ضريبة القيمة المضافة المشمولة (15%)'],
    ]) {
      expect(text).toContain(en);
      expect(hasArabicLine(text, ar)).toBe(true);
    }
  });

  it('without saved settings: no header, no footer, no VAT line; still titled and disclaimed', async () => {
    const text = await pdfText(
      expectPdf(await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token), `receipt-${payment.receiptNumber}.pdf`),
    );
    expectReceiptFrame(text);
    expectNoHeaderOrFooter(text);
    expect(text).not.toContain('VAT');
    expect(text).toContain('1,234.50 SAR');
  });

  it('prints only the header fields that are set, and no VAT line while showVatOnReceipts is off', async () => {
    await saveSettings({ legalNameEn: 'Bare Seller LLC', legalNameAr: 'البائع', vatNumber: '300999999900003', showVatOnReceipts: false });
    const text = await pdfText(
      expectPdf(await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token), `receipt-${payment.receiptNumber}.pdf`),
    );
    expectReceiptFrame(text);
    expect(text).toContain('Bare Seller LLC');
    expect(text).toContain('VAT No.: 300999999900003');
    for (const absent of ['CR No.:', 'Support', 'VAT included']) expect(text).not.toContain(absent);
    expect(text).toContain('1,234.50 SAR');
  });

  it('reads the settings on every render: a new VAT rate shows on the next document, the total unchanged', async () => {
    await saveSettings(FULL_SETTINGS);
    expect(await pdfText((await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token)).body as Buffer)).toContain('161.02 SAR');
    await saveSettings({ ...FULL_SETTINGS, vatRatePercent: 12.5 });
    const text = await pdfText((await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token)).body as Buffer);
    expect(text).toContain('VAT included (12.5%)');
    expect(text).toContain('137.17 SAR'); // 123450 × 12.5 / 112.5 = 13716.67 halalas
    expect(text).toContain('1,234.50 SAR');
  });

  it('continues on a second page when the settings are at their longest, the footer on every page', async () => {
    const long = (text: string, max: number) =>
      Array.from({ length: max }, () => text)
        .join(' ')
        .slice(0, max);
    await saveSettings({
      ...FULL_SETTINGS,
      legalNameEn: long('Acme Telecom Trading Company', 255),
      legalNameAr: long('شركة أكمي للاتصالات التجارية', 255),
      addressEn: long('Building 12, King Fahd Road 1234', 500),
      addressAr: long('مبنى 12، طريق الملك فهد 1234', 500),
      supportEmail: `${'care'.repeat(15)}@support.example`,
    });
    const text = await pdfText((await get(`/documents/payment/${payment.paymentId}.pdf`, owner.token)).body as Buffer);
    expect(text).toContain('-- 2 of 2 --');
    expect(text.match(/Support:/g)).toHaveLength(2);
    for (const figure of [
      payment.receiptNumber,
      payment.paymentId,
      '1,234.50 SAR',
      '161.02 SAR',
      'This is a payment receipt, not a tax invoice.',
    ]) {
      expect(text).toContain(figure);
    }
  });

  it('keeps the payment in its own currency', async () => {
    const { orderId } = await insertActivation(t, { userId: owner.userId, order: { status: 'paid', totalAmountSar: '12.99' } });
    const id = randomUUID();
    await t.db.query(
      `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                             receipt_number, paid_at, created_at, updated_at)
       values ($1, $2, $3, 'card_scheme_1', 'mock', 'completed', 1299, 'USD', $4, repeat('f', 64), $5, '2026-11-20T08:30:00Z', now(), now())`,
      [id, orderId, owner.userId, newKey('usd'), `RCP-20261120-${id.slice(0, 8).toUpperCase()}`],
    );
    await saveSettings(FULL_SETTINGS);
    const text = await pdfText((await get(`/documents/payment/${id}.pdf`, owner.token)).body as Buffer);
    expect(text).toContain('12.99 USD');
    expect(text).toContain('1.69 USD'); // 1299 × 15 / 115 = 169.43 cents
    expect(text).toContain('2026-11-20 08:30 UTC');
    expect(text).toContain('Credit card');
    expect(text).not.toContain('SAR');
  });

  it('renders an unpaid payment with its provisional number and status, and no payment date', async () => {
    const { orderId } = await insertActivation(t, { userId: owner.userId, order: { status: 'pending_payment', totalAmountSar: '49.00' } });
    const id = randomUUID();
    await t.db.query(
      `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                             failure_reason, created_at, updated_at)
       values ($1, $2, $3, 'wallet_token', 'mock', 'failed', 4900, 'SAR', $4, repeat('f', 64), 'card_declined', now(), now())`,
      [id, orderId, owner.userId, newKey('failed')],
    );
    const number = `FAILED-${id.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
    const text = await pdfText(expectPdf(await get(`/documents/payment/${id}.pdf`, owner.token), `receipt-${number}.pdf`));
    expectReceiptFrame(text);
    for (const figure of [number, 'Digital wallet', 'Not completed', '49.00 SAR']) expect(text).toContain(figure);
    expect(text).not.toContain('Date paid');
  });

  it("is the owner's only: another user, staff and portal users get DOCUMENT_NOT_FOUND", async () => {
    const other = await signUp(t);
    const staff = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    for (const token of [other.token, root.token, staff.token]) {
      await expectError(get(`/documents/payment/${payment.paymentId}.pdf`, token), 404, 'DOCUMENT_NOT_FOUND');
    }
  });
});

describe('contract payment receipt (contract_payment)', () => {
  let companyId: string;
  let contract: Awaited<ReturnType<typeof insertContract>>;
  let paymentId: string;
  let companyAdmin: Caller;
  let member: Caller;

  beforeAll(async () => {
    companyId = await insertCompany(t.db, 'approved', '7001234567');
    contract = await insertContract(t.db, { companyId, mode: 'flexible', totalHalalas: 500_000 });
    paymentId = await insertContractPayment(t.db, contract.contractId, 1_000_001);
    await t.db.query(`update contract_payments set method = 'cheque', confirmed_at = '2026-11-23T14:05:00Z' where id = $1`, [paymentId]);
    companyAdmin = await signInAs(t, 'b2b_admin');
    await joinCompany(t.db, companyId, companyAdmin.userId, 'admin');
    member = await signInAs(t, 'b2b_admin');
    await joinCompany(t.db, companyId, member.userId, 'member');
  });
  afterEach(clearSettings);

  const path = () => `/documents/contract_payment/${paymentId}.pdf`;
  const filename = () => `receipt-${contractPaymentReceiptNumber(paymentId)}.pdf`;

  it('renders every figure in halalas as SAR, with the company and contract, never reading the proof bytes', async () => {
    await saveSettings(FULL_SETTINGS);
    const execute = jest.spyOn(t.db.pool, 'query');
    try {
      const text = await pdfText(expectPdf(await get(path(), companyAdmin.token), filename()));
      expectReceiptFrame(text);
      expectHeaderAndFooter(text, FULL_SETTINGS);
      for (const figure of [
        contractPaymentReceiptNumber(paymentId),
        paymentId,
        contract.ref,
        'Acme', // the company's name (test/helpers/companies.ts)
        '7001234567',
        '2026-11-23 14:05 UTC',
        'Cheque',
        '10,000.01 SAR',
        'VAT included (15%)',
        '1,304.35 SAR', // 1000001 × 15 / 115 = 130434.91 halalas
      ]) {
        expect(text).toContain(figure);
      }
      for (const [en, ar] of [
        ['Contract', 'العقد'],
        ['Company CR No.', 'السجل التجاري للشركة'],
        ['Date received', 'تاريخ الاستلام'],
      ]) {
        expect(text).toContain(en);
        expect(hasArabicLine(text, ar)).toBe(true);
      }
      const statements = execute.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : JSON.stringify(sql)));
      expect(statements.some((sql) => sql.includes('from contract_payments'))).toBe(true);
      expect(statements.filter((sql) => sql.includes('document_bytes'))).toEqual([]);
    } finally {
      execute.mockRestore();
    }
  });

  it('without settings: no header, footer or VAT line', async () => {
    const text = await pdfText(expectPdf(await get(path(), member.token), filename()));
    expectReceiptFrame(text);
    expectNoHeaderOrFooter(text);
    expect(text).not.toContain('VAT');
    expect(text).toContain('10,000.01 SAR');
  });

  it('admins and members of the company, super_admin and admins with b2b view may read it', async () => {
    const viewer = await signInAs(t, 'admin', { view: ['b2b'] });
    for (const caller of [companyAdmin, member, root, viewer]) expectPdf(await get(path(), caller.token), filename());
  });

  it('anyone else gets DOCUMENT_NOT_FOUND, as for a missing payment', async () => {
    const otherCompany = await insertCompany(t.db, 'approved');
    const outsider = await signInAs(t, 'b2b_admin');
    await joinCompany(t.db, otherCompany, outsider.userId, 'admin');
    const noCompany = await signInAs(t, 'b2b_admin');
    const staffNoArea = await signInAs(t, 'admin');
    const support = await signInAs(t, 'support');
    const consumer = await signUp(t);
    for (const caller of [outsider, noCompany, staffNoArea, support, consumer]) {
      await expectError(get(path(), caller.token), 404, 'DOCUMENT_NOT_FOUND');
    }
  });

  it("members of the company lose access while it is not approved (the company guard's rule)", async () => {
    await t.db.query(`update companies set status = 'suspended' where id = $1`, [companyId]);
    try {
      await expectError(get(path(), member.token), 404, 'DOCUMENT_NOT_FOUND');
      await expectError(get(path(), companyAdmin.token), 404, 'DOCUMENT_NOT_FOUND');
      expectPdf(await get(path(), root.token), filename());
    } finally {
      await t.db.query(`update companies set status = 'approved' where id = $1`, [companyId]);
    }
  });
});

describe('errors', () => {
  let user: { token: string };
  beforeAll(async () => {
    user = await signUp(t);
  });

  it('AUTH_REQUIRED without a session', async () => {
    const res = await get(`/documents/payment/${randomUUID()}.pdf`);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('AUTH_REQUIRED');
  });

  it.each(['en', 'ar'] as const)('DOCUMENT_TYPE_NOT_FOUND for an unregistered type (%s)', async (lang) => {
    for (const type of ['invoice', 'constructor', '__proto__', 'PAYMENT']) {
      await expectError(get(`/documents/${type}/${randomUUID()}.pdf`, user.token, lang), 404, 'DOCUMENT_TYPE_NOT_FOUND', lang);
    }
  });

  it.each(['en', 'ar'] as const)('DOCUMENT_NOT_FOUND for a non-UUID or missing entity (%s)', async (lang) => {
    for (const id of ['not-a-uuid', '123', randomUUID()]) {
      await expectError(get(`/documents/payment/${id}.pdf`, user.token, lang), 404, 'DOCUMENT_NOT_FOUND', lang);
      await expectError(get(`/documents/contract_payment/${id}.pdf`, user.token, lang), 404, 'DOCUMENT_NOT_FOUND', lang);
    }
  });

  it('a path without .pdf is not a route', async () => {
    const res = await get(`/documents/payment/${randomUUID()}`, user.token);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('NOT_FOUND');
  });
});

describe('a renderer that fails', () => {
  it.each(['en', 'ar'] as const)('answers DOCUMENT_RENDER_FAILED 500 and logs the cause (%s)', async (lang) => {
    const owner = await signUp(t);
    const payment = await paidConsumerPayment(owner, '10.00');
    const logLines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
    const cache = createSessionCache({ pool: t.db.pool, ttlMs: 0 });
    const sessions = createSessionService({ db: t.db.sql, clock: t.clock, config: t.config, cache });
    const failing = { ...documentTypes.payment, render: () => Promise.reject(new Error('font table exploded')) };
    const routes = createRouteTestApp(t, {
      logger,
      sessions,
      register: (api) => documentRoutes(api, { db: t.db.sql, logger, types: { ...documentTypes, payment: failing } }),
    });
    try {
      const res = await request(routes.app)
        .get(`/documents/payment/${payment.paymentId}.pdf`)
        .set(bearer(owner.token))
        .set('Accept-Language', lang);
      await expectError(res, 500, 'DOCUMENT_RENDER_FAILED', lang);
      expect(logLines.some((l) => l.includes('document render failed') && l.includes('font table exploded'))).toBe(true);
      expect(routes.violations).toEqual([]);
    } finally {
      routes.stop();
      await cache.stop();
    }
  });
});
