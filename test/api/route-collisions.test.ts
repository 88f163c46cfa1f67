// Literal path segments win over a parameter route. Issue 20: "`GET /admin/companies/invites` answers
// 400 (the `:id` route took it) instead of 405 for a method the OpenAPI document does not list." Every
// pair of a literal document path and a parameter path that also names it is walked here: a method the
// literal path does not list answers 405 with the literal path's Allow, never the parameter route's answer.
import request from 'supertest';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { signInAs } from '../helpers/company-routes';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

/** Each document path with the methods it lists. */
function documentPaths(): Map<string, Method[]> {
  const doc = (t.app.locals.openapi as () => { paths: Record<string, Record<string, unknown>> })();
  return new Map(Object.entries(doc.paths).map(([p, ops]) => [p, METHODS.filter((m) => m in ops)]));
}

const segments = (p: string) => p.split('/').filter(Boolean);
const isParam = (segment: string) => /^\{\w+\}$/.test(segment);

/** A request path both document paths name, or null: each parameter takes the other path's literal there, else "x1". */
function sharedPath(a: string, b: string): string | null {
  const [sa, sb] = [segments(a), segments(b)];
  if (sa.length !== sb.length) return null;
  const out: string[] = [];
  for (let i = 0; i < sa.length; i++) {
    if (sa[i] === sb[i]) out.push(isParam(sa[i]) ? 'x1' : sa[i]);
    else if (isParam(sa[i]) && !isParam(sb[i])) out.push(sb[i]);
    else if (isParam(sb[i]) && !isParam(sa[i])) out.push(sa[i]);
    else if (isParam(sa[i]) && isParam(sb[i])) out.push('x1');
    else return null;
  }
  return `/${out.join('/')}`;
}

/** Literal segments win: at the first segment where one has a literal and the other a parameter. */
function moreSpecific(a: string, b: string): boolean {
  const [sa, sb] = [segments(a), segments(b)];
  const i = sa.findIndex((s, k) => isParam(s) !== isParam(sb[k]));
  return i >= 0 && !isParam(sa[i]);
}

/** The Allow header the literal path should answer with: its methods, HEAD with GET, and OPTIONS. */
function allowOf(methods: Method[]): string {
  const all = new Set(methods.map((m) => m.toUpperCase()));
  all.add('OPTIONS');
  if (all.has('GET')) all.add('HEAD');
  return [...all].sort().join(', ');
}

interface Collision {
  /** The more specific document path, its methods, and a request path it shares with `pattern`. */
  specific: string;
  methods: Method[];
  request: string;
  pattern: string;
}

/** Every pair of document paths that name a common request path, one with a literal where the other has a parameter. */
function collisions(): Collision[] {
  const paths = documentPaths();
  const found: Collision[] = [];
  for (const [specific, methods] of paths) {
    for (const pattern of paths.keys()) {
      const request = pattern === specific ? null : sharedPath(specific, pattern);
      if (request && moreSpecific(specific, pattern)) found.push({ specific, methods, request, pattern });
    }
  }
  return found;
}

it('the document has such pairs (the walk below is not empty), /admin/companies/invites among them', () => {
  const pairs = collisions().map((c) => `${c.specific} ${c.pattern}`);
  expect(pairs).toEqual(
    expect.arrayContaining([
      '/admin/companies/invites /admin/companies/{id}',
      '/admin/quotes/catalog /admin/quotes/{id}',
      '/b2b/roster/export /b2b/roster/{rosterId}',
      // Literal only in part: /admin/contracts/company/payments is named by both.
      '/admin/contracts/company/{companyId} /admin/contracts/{id}/payments',
    ]),
  );
});

it('GET /admin/companies/invites is 405 with Allow: OPTIONS, POST (not the :id route’s 401 or 400)', async () => {
  const res = await request(t.app).get('/admin/companies/invites');
  expect([res.status, res.headers.allow, errorCode(res)]).toEqual([405, 'OPTIONS, POST', 'METHOD_NOT_ALLOWED']);
});

it('for every such pair, each method the more literal path does not list is 405 with its Allow, never the other route', async () => {
  const seen: string[] = [];
  for (const { methods, request: literal } of collisions()) {
    for (const method of METHODS.filter((m) => !methods.includes(m))) {
      const key = `${method.toUpperCase()} ${literal}`;
      if (seen.includes(key)) continue;
      seen.push(key);
      // With a trailing slash and in another case too: Express routes both to the same handlers.
      for (const path of [literal, `${literal}/`, literal.toUpperCase()]) {
        const res = await request(t.app)[method](path);
        expect([method.toUpperCase(), path, res.status, res.headers.allow, errorCode(res)]).toEqual([
          method.toUpperCase(),
          path,
          405,
          allowOf(methods),
          'METHOD_NOT_ALLOWED',
        ]);
      }
    }
  }
  expect(seen.length).toBeGreaterThan(3);
});

it('OPTIONS on such a path answers the more literal path’s Allow', async () => {
  for (const { methods, request: literal } of collisions()) {
    const res = await request(t.app).options(literal);
    expect([literal, res.status, res.headers.allow]).toEqual([literal, 204, allowOf(methods)]);
  }
});

it('a method both paths list goes to the more literal one: GET /admin/contracts/company/payments is the company’s contract', async () => {
  // Unauthenticated, both would answer 401; the route that took it is the one whose contract the answer is checked against.
  const { token } = await signInAs(t, 'super_admin');
  const res = await request(t.app).get('/admin/contracts/company/payments').set(bearer(token));
  // The company route reads `payments` as a company id: no active contract, `{ data: null }` (the payments list would be `[]`).
  expect([res.status, res.body]).toEqual([200, { data: null }]);
});

it('the parameter route still takes every other value of its parameter', async () => {
  const res = await request(t.app).get('/admin/companies/invitez');
  expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
});
