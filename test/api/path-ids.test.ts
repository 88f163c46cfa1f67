// Malformed path ids, walked from the served OpenAPI document: every route with an id in its path is
// sent four malformed ids and must answer what its spec lists. b2b-portal.md lists "VALIDATION_ERROR
// 400 (neither or both fields, bad id)" for PATCH /b2b/roster/:rosterId, and VALIDATION_ERROR on the
// other id routes below: there a malformed id is VALIDATION_ERROR with a detail on the parameter. Where
// the spec lists no VALIDATION_ERROR, or says a bad id is a 404 ("DOCUMENT_NOT_FOUND 404 (entity id not
// a UUID or no entity)"), or an empty answer ("an unknown contract id returns an empty array"), the id
// is documented as any string and answers like an unknown one: the code ANSWERED_AS_UNKNOWN names.
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
  'GET /store/orders/{id}',
  'POST /admin/compliance/users/{id}/erase',
];

/**
 * Every other operation with an id in its path: what its spec lists for an unknown id, which a malformed
 * one answers too (`200`: the route's empty answer, the same as for an unknown id). `body` is a valid one
 * (so the id decides), `fill` the value of a path parameter that is not an id.
 */
const ANSWERED_AS_UNKNOWN: Record<string, { answer: string; body?: object; fill?: Record<string, string> }> = {
  // consumer-service.md
  'GET /activations/{id}/status': { answer: '404 ACTIVATION_NOT_FOUND' },
  'GET /activations/{id}/esim-qr': { answer: '404 ACTIVATION_NOT_FOUND' },
  'GET /activations/{id}/verify-identity': { answer: '404 ACTIVATION_NOT_FOUND' },
  'POST /activations/{id}/verify-identity': {
    answer: '404 ACTIVATION_NOT_FOUND',
    body: { identityType: 'citizen', idNumber: '1098765432' },
  },
  'GET /payments/{id}/receipt': { answer: '404 NOT_FOUND' },
  'GET /documents/{type}/{entityId}.pdf': { answer: '404 DOCUMENT_NOT_FOUND', fill: { type: 'payment' } },
  // Staff routes of the codes-only part (administration users, blocklists, reconciliation records).
  'GET /admin/users/{id}': { answer: '404 ADMIN_USER_NOT_FOUND' },
  'PATCH /admin/users/{id}': { answer: '404 ADMIN_USER_NOT_FOUND', body: { name: 'Renamed' } },
  'DELETE /admin/users/{id}': { answer: '404 ADMIN_USER_NOT_FOUND' },
  'POST /admin/users/{id}/deactivate': { answer: '404 ADMIN_USER_NOT_FOUND' },
  'POST /admin/users/{id}/blocklist': { answer: '404 ADMIN_USER_NOT_FOUND', body: { reason: 'Fraud' } },
  'DELETE /admin/users/{id}/blocklist': { answer: '404 ADMIN_USER_NOT_FOUND' },
  'DELETE /admin/device-blocklist/{deviceId}': { answer: '200' },
  'POST /admin/reconciliation-records/{id}/resolve': { answer: '404 NOT_FOUND', body: { note: 'Refunded' } },
  // esim-store.md
  'GET /store/orders/{id}/esim-qr': { answer: '404 STORE_ORDER_NOT_FOUND' },
  'POST /admin/store/orders/{id}/requeue': { answer: '404 STORE_ORDER_NOT_FOUND' },
  'GET /admin/compliance/users/{id}/export': { answer: '404 NOT_FOUND' },
  // b2b-portal.md
  'POST /b2b/quotes/{id}/submit': { answer: '404 QUOTE_NOT_FOUND' },
  'POST /b2b/quotes/{id}/accept': { answer: '404 QUOTE_NOT_FOUND' },
  'POST /admin/quotes/{id}/start-review': { answer: '404 QUOTE_NOT_FOUND' },
  'POST /admin/quotes/{id}/reject': { answer: '404 QUOTE_NOT_FOUND', body: {} },
  'GET /admin/contracts/company/{companyId}': { answer: '200' },
  'GET /admin/contracts/company/{companyId}/readiness': { answer: '200' },
  'GET /admin/contracts/company/{companyId}/balance': { answer: '200' },
  'GET /admin/contracts/{id}/payments': { answer: '200' },
};

/** Four malformed ids: not hex, too short, one character too many, a non-hex digit in a UUID's place. */
const MALFORMED = ['not-a-uuid', '12345', `${randomUUID()}0`, `${randomUUID().slice(0, -1)}g`];

let t: TestApp;
let doc: Doc;
let companyAdmin: Caller;
let superAdmin: Caller;
let consumer: Caller;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await request(t.app).get('/openapi.json')).body as Doc;
  companyAdmin = await signInAs(t, 'b2b_admin');
  await joinCompany(t.db, await insertCompany(t.db, 'approved'), companyAdmin.userId, 'admin');
  superAdmin = await signInAs(t, 'super_admin');
  consumer = await signInAs(t, 'end_user');
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
  if (op.description?.startsWith('Signed-in users.')) return consumer;
  // Public routes ignore the token.
  if (op.description?.startsWith('Public.')) return superAdmin;
  throw new Error(`no caller for a guard described as ${JSON.stringify(op.description?.split('\n')[0])}`);
}

/** The request of one operation with `param` set to `id` (the other ids unknown but well-formed). */
function send(
  method: string,
  path: string,
  op: Operation,
  param: Param,
  id: string,
  given: { body?: object; fill?: Record<string, string> } = {},
) {
  const url = pathParams(op).reduce(
    (built, p) => built.replace(`{${p.name}}`, p === param ? id : (given.fill?.[p.name] ?? randomUUID())),
    path,
  );
  const req = request(t.app)
    [method as 'get' | 'post' | 'patch' | 'delete'](url)
    .set(bearer(callerOf(op).token));
  const body = given.body ?? (op.requestBody ? {} : undefined);
  return { url, res: body ? req.send(body) : req };
}

const idParams = (op: Operation) => pathParams(op).filter((p) => /id$/i.test(p.name));
const name = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

it('answers a malformed uuid path id with VALIDATION_ERROR on that parameter, wherever the document lists VALIDATION_ERROR', async () => {
  const documented = operations().filter(({ op }) => listsValidationError(op) && pathParams(op).some((p) => p.schema.format === 'uuid'));
  const walked = [...documented, ...operations().filter(({ method, path }) => SPEC_VALIDATED.includes(name(method, path)))];

  const answers: string[] = [];
  for (const { method, path, op } of new Set(walked)) {
    for (const param of pathParams(op)) {
      for (const id of MALFORMED) {
        const { url, res } = send(method, path, op, param, id);
        const answer = await res;
        const details = (errorOf(answer).details ?? []) as { path: string }[];
        answers.push(
          `${method.toUpperCase()} ${url}: ${answer.status} ${errorOf(answer).code} ${details.some((d) => d.path === param.name)}`,
        );
      }
    }
  }
  expect(answers).toEqual(answers.map((a) => a.replace(/: .*$/, ': 400 VALIDATION_ERROR true')));
  // The document says so too: those ids are uuids there, and no other route's id is.
  expect(documented.map(({ method, path }) => name(method, path)).sort()).toEqual([...SPEC_VALIDATED].sort());
});

it('answers a malformed id on every other route with an id in its path as its spec has an unknown id answered', async () => {
  const others = operations().filter(({ method, path, op }) => idParams(op).length && !SPEC_VALIDATED.includes(name(method, path)));
  // A new route with an id in its path is decided here, from its spec.
  expect(others.map(({ method, path }) => name(method, path)).sort()).toEqual(Object.keys(ANSWERED_AS_UNKNOWN).sort());

  const answers: string[] = [];
  const wanted: string[] = [];
  for (const { method, path, op } of others) {
    const given = ANSWERED_AS_UNKNOWN[name(method, path)];
    for (const param of idParams(op)) {
      const unknownId = randomUUID();
      const unknown = await send(method, path, op, param, unknownId, given).res;
      for (const id of MALFORMED) {
        const { url, res } = send(method, path, op, param, id, given);
        const answer = await res;
        // An empty answer (200) is the unknown id's, body and all (an answer may name the id it was given).
        const bodyOf = (body: unknown, given: string) => JSON.stringify(body).replaceAll(given, '<id>');
        const same = answer.status !== 200 || bodyOf(answer.body, id) === bodyOf(unknown.body, unknownId);
        answers.push(`${method.toUpperCase()} ${url}: ${[answer.status, errorOf(answer)?.code].filter(Boolean).join(' ')} ${same}`);
        wanted.push(`${method.toUpperCase()} ${url}: ${given.answer} true`);
      }
    }
  }
  expect(answers).toEqual(wanted);
});

it('documents every other path id as any string answered like an unknown one (no VALIDATION_ERROR for it)', () => {
  const others = operations().flatMap(({ method, path, op }) =>
    pathParams(op)
      .filter((p) => /id$/i.test(p.name) && !SPEC_VALIDATED.includes(name(method, path)))
      .map((p) => ({ at: `${name(method, path)} ${p.name}`, schema: p.schema })),
  );
  expect(others.length).toBeGreaterThan(10);
  for (const { at, schema } of others)
    expect([at, schema.format, schema.description]).toEqual([at, undefined, expect.stringMatching(/as an unknown one|device id/i)]);
});
