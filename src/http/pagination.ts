import { validationError } from './errors';
import { DATE, TIME_OF_DAY, UUID_SOURCE } from './fields';
import { z } from '../openapi/registry';

/**
 * Paging query parameters, both kinds, in one place.
 *
 * - Keyset (activation history and records): `cursor` + `limit`, answered with `nextCursor`/`hasMore`.
 * - Offset (the B2B lists): `page` + `limit`, answered with `{ <items>, total, page, limit }`.
 *
 * Query values arrive as strings: numbers are digits only (no sign, exponent, decimals or spaces),
 * and a repeated parameter (an array) is refused by the string type.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/**
 * Offset paging stops at page 10,000: at most 999,900 rows are skipped (limit 100), which keeps the
 * offset far inside PostgreSQL's int range and every arithmetic exact, and bounds the cost of a deep
 * OFFSET scan. Past that, a client narrows the list with the route's filters.
 */
export const MAX_PAGE = 10_000;

const limitMessage = `limit must be an integer from 1 to ${MAX_LIMIT}`;
const pageMessage = `page must be an integer from 1 to ${MAX_PAGE}`;

/** A positive integer query value: digits only, then the range; exactly one issue for any failure. */
const digits = (min: number, max: number, message: string) =>
  z
    .string()
    .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, message)
    .transform(Number);

// --- Keyset ----------------------------------------------------------------------------------

/** Digits only, then 1-100: 'abc', '0', '101', '1.5', '1e1', ' 5' and repeated keys are all VALIDATION_ERROR. Absent: undefined (the service applies 20). */
export const Limit = digits(1, MAX_LIMIT, limitMessage)
  .optional()
  .openapi({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT });

/** UTC only. */
const TIME = `${TIME_OF_DAY}Z`;

/**
 * `<createdAt>|<id>`, exactly the strings the server accepts: a string matches this pattern if and
 * only if parseCursor takes it (test/unit/pagination.test.ts checks every date of the range). It is
 * published as the OpenAPI `pattern`, so a generated client or fuzzer only builds accepted cursors.
 * JSON Schema patterns have no flags, hence the explicit case ranges.
 */
export const CURSOR_PATTERN = `^(${DATE}${TIME})\\|(${UUID_SOURCE})$`;
const CURSOR = new RegExp(CURSOR_PATTERN);
const CURSOR_MESSAGE = 'Invalid cursor: use the nextCursor of the previous page';

/** The keyset position: the last row's createdAt and id. */
export interface Cursor {
  /** ISO 8601 UTC text as received, passed to PostgreSQL as text so µs are not lost through a JS Date. */
  createdAt: string;
  /** Lower-cased uuid. */
  id: string;
}

/** Checked by the pattern alone, so the route answers VALIDATION_ERROR on `cursor` before the service runs. */
export const CursorParam = z.string().regex(CURSOR, CURSOR_MESSAGE).optional().openapi({
  description: 'Omit for the first page; otherwise the previous `nextCursor` (`<createdAt ISO 8601 UTC>|<id>`)',
  example: '2026-05-05T05:05:05.505Z|7d1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e',
});

/** Parses a cursor or throws VALIDATION_ERROR on `cursor`. */
export function parseCursor(value: string): Cursor {
  const match = CURSOR.exec(value);
  // The Date check is belt and braces: the pattern already admits only real calendar instants.
  if (!match || !isSameInstantText(match[1])) throw validationError([{ path: 'cursor', message: CURSOR_MESSAGE }]);
  return { createdAt: match[1], id: match[2].toLowerCase() };
}

/** V8 parses the text to the same date and time of day (it would roll 2026-02-30 over to 1 March). */
function isSameInstantText(iso: string): boolean {
  const parsed = new Date(iso);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === iso.slice(0, 19);
}

// --- Offset ----------------------------------------------------------------------------------

/** `page`: 1-10,000, default 1. */
export const Page = digits(1, MAX_PAGE, pageMessage).default(1).openapi({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 });

/** `limit` of an offset list: 1-100, default 20. */
export const PageLimit = digits(1, MAX_LIMIT, limitMessage)
  .default(DEFAULT_LIMIT)
  .openapi({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT });

/** Spread into a route's query object: `z.strictObject({ ...offsetParams, status })`. Parsed values are numbers with defaults applied. */
export const offsetParams = { page: Page, limit: PageLimit };

export interface OffsetPaging {
  page: number;
  limit: number;
}

/** Rows to skip for a page: (page - 1) * limit, at most 999,900. */
export function offsetOf({ page, limit }: OffsetPaging): number {
  return (page - 1) * limit;
}

const Count = z.number().int().min(0);

/**
 * The spec's paged body `{ data: { <key>: Item[], total, page, limit, ...extra } }` as a named
 * OpenAPI component, e.g. `offsetPage('AdminCompanyList', 'companies', Company)`; `extra` adds
 * fields beside them (the admin links list's `stats`).
 */
export function offsetPage<K extends string, T extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  name: string,
  key: K,
  item: T,
  extra?: E,
) {
  const items = { [key]: z.array(item) } as Record<K, z.ZodArray<T>>;
  const data = z.object({
    ...items,
    total: Count.openapi({ description: 'Rows matching the filters, over all pages' }),
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(MAX_LIMIT),
    ...((extra ?? {}) as E),
  });
  return z.object({ data }).openapi(name);
}

/** The value for offsetPage's schema: `offsetPageBody('companies', rows, total, paging)`. */
export function offsetPageBody<K extends string, T>(
  key: K,
  items: T[],
  total: number,
  paging: OffsetPaging,
): { data: Record<K, T[]> & { total: number; page: number; limit: number } } {
  const list = { [key]: items } as Record<K, T[]>;
  return { data: { ...list, total, page: paging.page, limit: paging.limit } };
}
