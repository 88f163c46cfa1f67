// Security headers on every answer (issue 20): "`X-Content-Type-Options: nosniff`, no `X-Powered-By`,
// frame denial (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), a restrictive CSP for JSON;
// the OpenAPI/Swagger UI page must still work in a browser, so give it the CSP it needs."
import request from 'supertest';
import { bearer, createTestApp, signUp, type TestApp } from '../helpers/app';
import { insertCompany } from '../helpers/companies';
import { signInAs, type Caller } from '../helpers/company-routes';
import { insertContract, insertContractPayment } from '../helpers/contracts';
import { binaryParser, insertActivation, seedCatalog, storedProfile } from '../helpers/read-app';

let t: TestApp;
let root: Caller;
beforeAll(async () => {
  t = await createTestApp();
  await seedCatalog(t);
  root = await signInAs(t, 'super_admin');
});
afterAll(() => t.close());

type Answer = { status: number; headers: Record<string, string | undefined> };

/** The CSP directives of an answer, by name. */
function csp(res: Answer): Map<string, string> {
  const header = res.headers['content-security-policy'] ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
  );
}

/** What every answer carries, whatever it is. */
function expectSecurityHeaders(label: string, res: Answer) {
  expect([label, res.headers['x-content-type-options'], res.headers['x-frame-options'], res.headers['x-powered-by']]).toEqual([
    label,
    'nosniff',
    'DENY',
    undefined,
  ]);
  const directives = csp(res);
  expect([label, directives.get('frame-ancestors')]).toEqual([label, "'none'"]);
  expect([label, directives.get('default-src')]).toEqual([label, "'none'"]);
  expect([label, res.headers['referrer-policy']]).toEqual([label, 'no-referrer']);
}

/** The headers that act on documents only (issue 31: every answer paid for them); the /docs page has them. */
const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

/** The restrictive policy of everything but the documentation page: nothing may load, run or frame it. */
function expectApiPolicy(label: string, res: Answer) {
  expectSecurityHeaders(label, res);
  expect([label, [...csp(res).keys()].sort()]).toEqual([label, ['base-uri', 'default-src', 'form-action', 'frame-ancestors']]);
  expect([label, res.headers['strict-transport-security'], res.headers['cross-origin-resource-policy']]).toEqual([
    label,
    'max-age=31536000; includeSubDomains',
    'same-site',
  ]);
  expect([label, DOCUMENT_ONLY.filter((name) => res.headers[name] !== undefined)]).toEqual([label, []]);
}

it('a JSON answer', async () => {
  const res = await request(t.app).get('/operators');
  expect(res.status).toBe(200);
  expectApiPolicy('GET /operators', res);
});

it('an error answer, a 404 and a 405', async () => {
  const unauthorised = await request(t.app).get('/auth/me');
  expect(unauthorised.status).toBe(401);
  expectApiPolicy('401', unauthorised);
  const missing = await request(t.app).get('/no/such/path');
  expect(missing.status).toBe(404);
  expectApiPolicy('404', missing);
  const invalid = await request(t.app).post('/auth/login').send({ phone: 'nope' });
  expect(invalid.status).toBe(400);
  expectApiPolicy('400', invalid);
  const method = await request(t.app).delete('/operators');
  expect(method.status).toBe(405);
  expectApiPolicy('405', method);
});

it('a CSV download', async () => {
  const res = await request(t.app).get('/admin/links/export').set(bearer(root.token));
  expect([res.status, res.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
  expectApiPolicy('links.csv', res);
});

it('a generated PDF and a stored proof document', async () => {
  const companyId = await insertCompany(t.db, 'approved');
  const contract = await insertContract(t.db, { companyId, mode: 'flexible', totalHalalas: 500_000 });
  const paymentId = await insertContractPayment(t.db, contract.contractId, 500_000);
  const pdf = await request(t.app)
    .get(`/documents/contract_payment/${paymentId}.pdf`)
    .set(bearer(root.token))
    .buffer(true)
    .parse(binaryParser as never);
  expect([pdf.status, pdf.headers['content-type']]).toEqual([200, 'application/pdf']);
  expectApiPolicy('receipt pdf', pdf);
  const proof = await request(t.app)
    .get(`/admin/contracts/${contract.contractId}/payments/${paymentId}/document`)
    .set(bearer(root.token))
    .buffer(true)
    .parse(binaryParser as never);
  expect(proof.status).toBe(200);
  expectApiPolicy('proof document', proof);
});

it('the eSIM QR PNG', async () => {
  const owner = await signUp(t);
  const { activationId } = await insertActivation(t, {
    userId: owner.userId,
    simType: 'esim',
    status: 'activated',
    identityStatus: 'completed',
    esimProfile: storedProfile(),
  });
  const res = await request(t.app)
    .get(`/activations/${activationId}/esim-qr`)
    .set(bearer(owner.token))
    .buffer(true)
    .parse(binaryParser as never);
  expect([res.status, res.headers['content-type']]).toEqual([200, 'image/png']);
  expectApiPolicy('esim-qr', res);
});

it('the OpenAPI document, and the Swagger UI page with the policy it needs to run (its own scripts and styles, nothing else)', async () => {
  expectApiPolicy('openapi.json', await request(t.app).get('/openapi.json'));

  const page = await request(t.app).get('/docs');
  expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
  expectSecurityHeaders('/docs', page);
  const directives = csp(page);
  expect(Object.fromEntries(directives)).toEqual({
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data: blob:",
    'font-src': "'self' data:",
    'connect-src': "'self'",
    'frame-ancestors': "'none'",
    'base-uri': "'none'",
    'form-action': "'none'",
  });
  // What the page loads is all same-origin and served: the policy above lets each of them in.
  const html = page.text;
  const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(sources).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
  expect(html).not.toMatch(/<script>|<style>|style="/); // no inline script or style in the page itself
  // A document: the headers that act on documents too.
  expect(DOCUMENT_ONLY.filter((name) => page.headers[name] === undefined)).toEqual([]);
  expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
  for (const src of sources) {
    const asset = await request(t.app).get(src);
    expect([src, asset.status]).toEqual([src, 200]);
    expectSecurityHeaders(src, asset);
  }
  const init = await request(t.app).get('/docs/init.js');
  expect(init.text).toContain("url: '/openapi.json'");
});
