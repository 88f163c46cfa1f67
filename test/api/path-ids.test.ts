// Malformed path ids, walked from the served OpenAPI document. b2b-portal.md lists "VALIDATION_ERROR
// 400 (neither or both fields, bad id)" for PATCH /b2b/roster/:rosterId, and VALIDATION_ERROR on the
// other id routes below: there a malformed id is VALIDATION_ERROR with a detail on the parameter. Where
// the spec lists no VALIDATION_ERROR, or says a bad id is a 404 ("DOCUMENT_NOT_FOUND 404 (entity id not
// a UUID or no entity)"), or an empty answer ("an unknown contract id returns an empty array"), the id
// is documented as any string and answers like an unknown one.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bearer, createTestApp, type TestApp } from '../helpers/app';
import { insertCompany, joinCompany } from '../helpers/companies';
import { signInAs, type Caller } from '../helpers/company-routes';
import { errorOf } from '../helpers/responses';

interface Param {
  name: string;
  in: string;
  schema: { type?: string; format?: string; description?: string };
}
interface Operation {
  description?: string;
  parameters?: Param[];
  requestBody?: unknown;
  responses: Record<string, { description: string }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

/** Every operation of the spec with an id in its path whose errors list VALIDATION_ERROR. */
const SPEC_VALIDATED = [
  'PATCH /b2b/roster/{rosterId}',
  'DELETE /b2b/roster/{rosterId}',
  'GET /b2b/quotes/{id}',
  'PATCH /b2b/quotes/{id}',
  'POST /b2b/quotes/{id}/reject',
  'GET /admin/companies/{id}',
  'POST /admin/companies/{id}/status',
  'GET /admin/quotes/{id}',
  'POST /admin/quotes/{id}/counter',
  'POST /admin/quotes/{id}/confirm-contract',
  'POST /admin/contracts/{id}/payments',
  'GET /admin/contracts/{id}/payments/{paymentId}/document',
  // esim-store.md lists VALIDATION_ERROR on these.
  'GET /store/products/{id}',
  'POST /admin/store/providers/{id}/toggle',
  'PATCH /admin/store/products/{id}',
];

let t: TestApp;
let doc: Doc;
let companyAdmin: Caller;
let superAdmin: Caller;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await request(t.app).get('/openapi.json')).body as Doc;
  companyAdmin = await signInAs(t, 'b2b_admin');
  await joinCompany(t.db, await insertCompany(t.db, 'approved'), companyAdmin.userId, 'admin');
  superAdmin = await signInAs(t, 'super_admin');
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));
const pathParams = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'path');
const listsValidationError = (op: Operation) => /\bVALIDATION_ERROR\b/.test(op.responses['400']?.description ?? '');

/** A caller the operation's guard admits (its description opens with the guard). */
function callerOf(op: Operation): Caller {
  if (op.description?.startsWith('Company portal staff')) return companyAdmin;
  if (op.description?.startsWith('super_admin')) return superAdmin;
  // Public routes ignore the token.
  if (op.description?.startsWith('Public.')) return superAdmin;
  throw new Error(`no caller for a guard described as ${JSON.stringify(op.description?.split('\n')[0])}`);
}

it('answers a malformed uuid path id with VALIDATION_ERROR on that parameter, wherever the document lists VALIDATION_ERROR', async () => {
  const name = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
  const documented = operations().filter(({ op }) => listsValidationError(op) && pathParams(op).some((p) => p.schema.format === 'uuid'));
  const walked = [...documented, ...operations().filter(({ method, path }) => SPEC_VALIDATED.includes(name(method, path)))];

  const answers: string[] = [];
  for (const { method, path, op } of new Set(walked)) {
    for (const param of pathParams(op)) {
      const url = pathParams(op).reduce((built, p) => built.replace(`{${p.name}}`, p === param ? 'not-a-uuid' : randomUUID()), path);
      const req = request(t.app)
        [method as 'get' | 'post' | 'patch' | 'delete'](url)
        .set(bearer(callerOf(op).token));
      const res = op.requestBody ? await req.send({}) : await req;
      const details = (errorOf(res).details ?? []) as { path: string }[];
      answers.push(`${method.toUpperCase()} ${url}: ${res.status} ${errorOf(res).code} ${details.some((d) => d.path === param.name)}`);
    }
  }
  expect(answers).toEqual(answers.map((a) => a.replace(/: .*$/, ': 400 VALIDATION_ERROR true')));
  // The document says so too: those ids are uuids there, and no other route's id is.
  expect(documented.map(({ method, path }) => name(method, path)).sort()).toEqual([...SPEC_VALIDATED].sort());
});

it('documents every other path id as any string answered like an unknown one (no VALIDATION_ERROR for it)', () => {
  const others = operations().flatMap(({ method, path, op }) =>
    pathParams(op)
      .filter((p) => /id$/i.test(p.name) && !SPEC_VALIDATED.includes(`${method.toUpperCase()} ${path}`))
      .map((p) => ({ at: `${method.toUpperCase()} ${path} ${p.name}`, schema: p.schema })),
  );
  expect(others.length).toBeGreaterThan(10);
  for (const { at, schema } of others)
    expect([at, schema.format, schema.description]).toEqual([at, undefined, expect.stringMatching(/as an unknown one|device id/i)]);
});
