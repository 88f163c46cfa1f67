import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import {
  CURSOR_PATTERN,
  CursorParam,
  Limit,
  MAX_PAGE,
  offsetOf,
  offsetPage,
  offsetPageBody,
  offsetParams,
  parseCursor,
} from '../../src/http/pagination';
import { AppError } from '../../src/http/errors';
import { z } from '../../src/openapi/registry';

const ID = '7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e';
const pattern = new RegExp(CURSOR_PATTERN);
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? { code: err.code, details: err.details } : err;
  }
  return 'accepted';
}

describe('keyset limit', () => {
  it.each([
    [undefined, undefined],
    ['1', 1],
    ['20', 20],
    ['100', 100],
    ['007', 7],
  ])('%j parses to %j', (raw, value) => {
    expect(Limit.parse(raw)).toBe(value);
  });

  it.each(['0', '101', 'abc', '1.5', '1e1', ' 5', '-1', '+5', '', ['1', '2']])('refuses %j', (raw) => {
    expect(Limit.safeParse(raw).success).toBe(false);
  });
});

describe('cursor', () => {
  it.each([
    [`2026-05-05T05:05:05.505Z|${ID}`, '2026-05-05T05:05:05.505Z', ID],
    [`2026-05-05T05:05:05.505123Z|${ID.toUpperCase()}`, '2026-05-05T05:05:05.505123Z', ID],
    [`2026-05-05T05:05:05Z|${ID}`, '2026-05-05T05:05:05Z', ID],
    [`2024-02-29T23:59:59.9Z|${ID}`, '2024-02-29T23:59:59.9Z', ID],
    [`2000-02-29T00:00:00.000Z|${ID}`, '2000-02-29T00:00:00.000Z', ID],
    [`1000-01-01T00:00:00.000Z|${ID}`, '1000-01-01T00:00:00.000Z', ID],
    [`9999-12-31T23:59:59.999999Z|${ID}`, '9999-12-31T23:59:59.999999Z', ID],
  ])('accepts %s', (raw, createdAt, id) => {
    expect(parseCursor(raw)).toEqual({ createdAt, id });
    expect(CursorParam.parse(raw)).toBe(raw);
  });

  it.each([
    'garbage',
    'x|y',
    '2026-05-05T05:05:05.505Z',
    '2026-05-05T05:05:05.505Z|not-a-uuid',
    `2026-13-05T05:05:05.505Z|${ID}`,
    `2026-02-30T05:05:05.505Z|${ID}`,
    `2026-02-29T05:05:05.505Z|${ID}`,
    `2100-02-29T05:05:05.505Z|${ID}`,
    `2026-04-31T05:05:05.505Z|${ID}`,
    `2026-00-10T05:05:05.505Z|${ID}`,
    `2026-01-00T05:05:05.505Z|${ID}`,
    `2026-01-01T24:00:00.000Z|${ID}`,
    `2026-01-01T23:60:00.000Z|${ID}`,
    `2026-01-01T23:59:60.000Z|${ID}`,
    `2026-01-01T00:00:00.1234567Z|${ID}`,
    `2026-01-01T00:00:00.Z|${ID}`,
    `2026-01-01T00:00:00.000+00:00|${ID}`,
    `2026-01-01t00:00:00.000z|${ID}`,
    `0999-12-31T00:00:00.000Z|${ID}`,
    `0000-01-01T00:00:00.000Z|${ID}`,
    `+012026-01-01T00:00:00.000Z|${ID}`,
    '2026-05-05 05:05:05|' + ID,
    `2026-05-05T05:05:05.505Z|${ID}' or 1=1 --`,
    ` 2026-05-05T05:05:05.505Z|${ID}`,
    `2026-05-05T05:05:05.505Z|${ID}\n`,
    `2026-05-05T05:05:05.505Z|${ID.replace(/-/g, '')}`,
  ])('refuses %j, at the route and in the service alike', (raw) => {
    expect(refusal(() => parseCursor(raw))).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'cursor', message: 'Invalid cursor: use the nextCursor of the previous page' }],
    });
    expect(CursorParam.safeParse(raw).success).toBe(false);
    expect(pattern.test(raw)).toBe(false);
  });

  // Pattern-valid ⇔ a real UTC calendar date in V8 (no roll-over), over a whole 400-year Gregorian cycle
  // (2000 divisible by 400; 2100, 2200, 2300 by 100 only) and both ends of the range. Run once over every
  // year 1000-9999 as well (3,348,000 dates, no mismatch); that takes 12 s, too slow to keep here.
  it('matches exactly the real calendar dates, leap years included', () => {
    const years = [1000, 1001, 1004, 1100, 1200, 1600, 1900, 9996, 9999];
    for (let y = 2000; y < 2400; y++) years.push(y);
    const mismatches: string[] = [];
    for (const y of years) {
      for (let m = 0; m <= 13; m++) {
        for (let d = 0; d <= 32; d++) {
          const date = `${y}-${pad(m)}-${pad(d)}`;
          const parsed = new Date(`${date}T00:00:00.000Z`);
          const real = m >= 1 && m <= 12 && !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
          if (pattern.test(`${date}T00:00:00.000Z|${ID}`) !== real) mismatches.push(date);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('matches exactly the times of day V8 reads without roll-over', () => {
    const mismatches: string[] = [];
    for (let h = 0; h <= 25; h++) {
      for (let m = 0; m <= 61; m++) {
        for (const s of [0, 1, 30, 59, 60, 61]) {
          const iso = `2026-03-01T${pad(h)}:${pad(m)}:${pad(s)}.500Z`;
          const parsed = new Date(iso);
          const real = !Number.isNaN(parsed.getTime()) && parsed.toISOString() === iso;
          if (pattern.test(`${iso}|${ID}`) !== real) mismatches.push(iso);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('is published as the OpenAPI pattern of the query parameter', () => {
    const registry = new OpenAPIRegistry();
    registry.registerPath({
      method: 'get',
      path: '/x',
      request: { query: z.object({ cursor: CursorParam, limit: Limit }) },
      responses: { 200: { description: 'ok' } },
    });
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
    });
    const params = doc.paths!['/x'].get!.parameters as unknown as Array<{
      name: string;
      required: boolean;
      schema: Record<string, unknown>;
    }>;
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(byName.cursor).toMatchObject({ required: false, schema: { type: 'string', pattern: CURSOR_PATTERN } });
    expect(byName.limit).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
  });
});

describe('offset paging', () => {
  const Query = z.strictObject({ ...offsetParams });

  it('defaults to page 1 of 20', () => {
    expect(Query.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it.each([
    [
      { page: '3', limit: '50' },
      { page: 3, limit: 50 },
    ],
    [
      { page: String(MAX_PAGE), limit: '100' },
      { page: MAX_PAGE, limit: 100 },
    ],
    [{ page: '01' }, { page: 1, limit: 20 }],
  ])('%j parses to %j', (raw, value) => {
    expect(Query.parse(raw)).toEqual(value);
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: String(MAX_PAGE + 1) }, 'page'],
    [{ page: '99999999999999999999999' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ page: '1.0' }, 'page'],
    [{ page: '' }, 'page'],
    [{ page: ['1', '2'] }, 'page'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
  ])('refuses %j on %s, with one issue', (raw, path) => {
    const result = Query.safeParse(raw);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toEqual([path]);
  });

  it('computes offsets, the deepest one included', () => {
    expect(offsetOf({ page: 1, limit: 20 })).toBe(0);
    expect(offsetOf({ page: 3, limit: 25 })).toBe(50);
    expect(offsetOf({ page: MAX_PAGE, limit: 100 })).toBe(999_900);
  });

  it('builds the paged body and its schema', () => {
    const Company = z.object({ id: z.uuid(), name: z.string() });
    const Schema = offsetPage('CompanyPage', 'companies', Company);
    const body = offsetPageBody('companies', [{ id: ID, name: 'Acme' }], 41, { page: 3, limit: 20 });
    expect(body).toEqual({ data: { companies: [{ id: ID, name: 'Acme' }], total: 41, page: 3, limit: 20 } });
    expect(Schema.parse(body)).toEqual(body);
    expect(Schema.safeParse({ data: { companies: [], total: -1, page: 1, limit: 20 } }).success).toBe(false);

    const WithStats = offsetPage('LinkPage', 'links', Company, { stats: z.object({ used: z.number().int() }) });
    const withStats = { data: { ...offsetPageBody('links', [], 0, { page: 1, limit: 20 }).data, stats: { used: 2 } } };
    expect(WithStats.parse(withStats)).toEqual(withStats);
  });

  it('documents page and limit as optional integers with defaults, and names the page component', () => {
    const registry = new OpenAPIRegistry();
    registry.registerPath({
      method: 'get',
      path: '/companies',
      request: { query: Query },
      responses: {
        200: {
          description: 'ok',
          content: { 'application/json': { schema: offsetPage('CompanyPage', 'companies', z.object({ id: z.uuid() })) } },
        },
      },
    });
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    const params = doc.paths!['/companies'].get!.parameters as Array<{ name: string; required: boolean; schema: unknown }>;
    expect(Object.fromEntries(params.map((p) => [p.name, [p.required, p.schema]]))).toEqual({
      page: [false, { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 }],
      limit: [false, { type: 'integer', minimum: 1, maximum: 100, default: 20 }],
    });
    const page = doc.components!.schemas!.CompanyPage as { properties: { data: { required: string[] } } };
    expect(page.properties.data.required).toEqual(['companies', 'total', 'page', 'limit']);
  });
});
