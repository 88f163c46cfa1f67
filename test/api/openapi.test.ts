// The served document is a tested artifact: valid OpenAPI 3.1 (official schema, every $ref
// resolved), stable operation ids, and every example a legal value of its own schema.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { componentNamesGivenTwice } from '../../src/openapi/registry';
import { bearer, createTestApp, signUp, type TestApp } from '../helpers/app';

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { operationId?: string; parameters?: Param[]; responses: Record<string, Response> }>>;
  components: { schemas: Record<string, unknown>; headers?: Record<string, Header> };
}
interface Param {
  name: string;
  in: string;
  schema: Record<string, unknown>;
  example?: unknown;
}
interface Header {
  schema: Record<string, unknown>;
}
interface Response {
  headers?: Record<string, Header | { $ref: string }>;
  links?: Record<string, { operationId: string }>;
}

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  const res = await request(t.app).get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Doc;
});
afterAll(() => t.close());

const operations = () => Object.values(doc.paths).flatMap((methods) => Object.values(methods));

it('is valid OpenAPI 3.1 against the official schema, every $ref resolved', () => {
  expect(doc.openapi).toBe('3.1.0');
  const out = execFileSync(process.execPath, [path.join(__dirname, '../../scripts/openapi-validate.mjs')], {
    input: JSON.stringify(doc),
    encoding: 'utf8',
  });
  expect(out).toContain('valid OpenAPI 3.1.0');
});

it('catches what it must: a dangling $ref makes the validator fail', () => {
  const broken = structuredClone(doc);
  broken.paths['/operators'].get.responses['200'] = {
    description: 'Success',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } },
  } as Response;
  expect(() =>
    execFileSync(process.execPath, [path.join(__dirname, '../../scripts/openapi-validate.mjs')], {
      input: JSON.stringify(broken),
      stdio: 'pipe',
    }),
  ).toThrow(/Nope/);
});

it('gives each component name to one schema only (the generator would silently use the first for both)', () => {
  expect(componentNamesGivenTwice()).toEqual([]);
});

it('gives every operation a unique operationId, and links name existing ones', () => {
  const ids = operations().map((o) => o.operationId);
  expect(ids.every(Boolean)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  const links = operations().flatMap((o) => Object.values(o.responses).flatMap((r) => Object.values(r.links ?? {})));
  expect(links.length).toBeGreaterThanOrEqual(4);
  for (const link of links) expect(ids).toContain(link.operationId);
});

it('has examples that are legal values of their own schemas (parameters, headers, schema examples)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const check = (where: string, schema: object, example: unknown) => {
    const valid = ajv.compile({ ...schema, components: doc.components })(example);
    expect([where, valid]).toEqual([where, true]);
  };
  let checked = 0;
  // Every schema object (components and inline) carrying an `example`.
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
    if (typeof node !== 'object' || node === null) return;
    const obj = node as Record<string, unknown>;
    if ('example' in obj && ('type' in obj || 'pattern' in obj || 'enum' in obj)) {
      const { example, ...schema } = obj;
      check(where, schema, example);
      checked += 1;
    }
    for (const [key, value] of Object.entries(obj)) if (key !== 'example') walk(value, `${where}/${key}`);
  };
  walk(doc, '#');
  for (const op of operations()) {
    for (const p of op.parameters ?? []) {
      if (p.example !== undefined) check(`${p.in} ${p.name}`, p.schema, p.example);
    }
  }
  expect(checked).toBeGreaterThan(5);
});

it('header examples are legal header values (visible ASCII only)', () => {
  const headerParams = operations().flatMap((o) => (o.parameters ?? []).filter((p) => p.in === 'header'));
  expect(headerParams.map((p) => p.name)).toContain('Processor-Signature');
  for (const p of headerParams) {
    const example = p.example ?? p.schema.example;
    // A header value is text: a string, or a number or boolean as it prints. An object would print as
    // '[object Object]' and pass, so it fails here instead.
    const text = typeof example === 'string' || typeof example === 'number' || typeof example === 'boolean' ? String(example) : null;
    if (example !== undefined) expect([p.name, text !== null && /^[\x20-\x7e]*$/.test(text)]).toEqual([p.name, true]);
  }
});

it('on the real app, a method a path does not have answers 405 with Allow (TRACE /operators), an unknown path 404', async () => {
  const trace = await request(t.app).trace('/operators');
  expect([trace.status, trace.headers.allow, (trace.body as { error: { code: string } }).error.code]).toEqual([
    405,
    'GET, HEAD, OPTIONS',
    'METHOD_NOT_ALLOWED',
  ]);
  const put = await request(t.app).put('/activations/3b1c2f7e-0000-4000-8000-000000000000/status');
  expect([put.status, put.headers.allow]).toEqual([405, 'GET, HEAD, OPTIONS']);
  expect((await request(t.app).get('/nope')).status).toBe(404);
});

it('refuses a body-less PUT /auth/me, which the document requires a body for', async () => {
  const { token } = await signUp(t);
  const res = await request(t.app).put('/auth/me').set(bearer(token));
  expect([res.status, (res.body as { error: { code: string } }).error.code]).toEqual([400, 'VALIDATION_ERROR']);
  const doc = (await request(t.app).get('/openapi.json')).body as {
    paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
  };
  expect(doc.paths['/auth/me'].put.requestBody?.required).toBe(true);
});
