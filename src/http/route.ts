import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { LinksObject } from 'openapi3-ts/oas31';
import { z } from '../openapi/registry';
import type { ResponseContract } from './contract';
import { corsHeaders, setPreflightHeaders, type CorsSpec } from './cors';
import { contentDisposition, CSV_CONTENT_TYPE, toCsv, TRUNCATED_HEADER, type CsvColumn, type CsvValue } from './csv';
import { errorCodes, type ErrorCode } from './error-codes';
import { AppError, validationError } from './errors';
import { PathId } from './fields';
import { DEVICE_ID_HEADER, DeviceIdHeader } from './device-id';
import type { Principal } from './principal';
import { guardDescription, guardErrors, type CompanyContext, type Guard, type GuardContext, type GuardMiddleware } from './guards';
import { issuesOf } from './validate';

// A route's method and what the answer checks and the error middleware read of it: their own module (route-meta.ts).
import type { Method, RouteMeta } from './route-meta';
export type { Method, RouteMeta };

/** How a success answer is sent: JSON, bytes of a fixed type (PNG), a CSV table, or a stored file. */
export type SuccessSpec =
  | { kind: 'json'; status: number; schema: z.ZodType; description?: string; headers?: HeaderSpec[]; links?: LinksObject }
  | { kind: 'binary'; status: number; contentType: string; description: string; headers?: HeaderSpec[] }
  | { kind: 'csv'; status: number; description: string }
  | { kind: 'file'; status: number; contentTypes: readonly string[]; description: string };

export interface HeaderSpec {
  name: string;
  schema: z.ZodType;
  description?: string;
  /** Present on every answer of that status (checked in tests). */
  required: boolean;
}

export const json = <S extends z.ZodType>(
  schema: S,
  opts: { status?: number; description?: string; headers?: HeaderSpec[]; links?: LinksObject } = {},
) =>
  ({ kind: 'json', status: opts.status ?? 200, schema, description: opts.description, headers: opts.headers, links: opts.links }) as const;
export const binary = (contentType: string, description: string, headers?: HeaderSpec[]) =>
  ({ kind: 'binary', status: 200, contentType, description, headers }) as const;
export const csv = (description: string) => ({ kind: 'csv', status: 200, description }) as const;
export const file = (contentTypes: readonly string[], description: string) =>
  ({ kind: 'file', status: 200, contentTypes, description }) as const;

/** What a CSV handler returns; the definition renders it (RFC 4180, formula-safe, Content-Disposition, X-Truncated). */
export interface CsvReply<K extends string> {
  filename: string;
  columns: readonly CsvColumn<K>[];
  rows: readonly { [P in K]?: CsvValue }[];
  /** The row cap clipped the result: sent as `X-Truncated: true`. */
  truncated?: boolean;
}
export interface FileReply {
  bytes: Buffer;
  contentType: string;
  filename: string;
}
/** An answer with another status than the route's success status (declared in `otherResponses`). */
export class Reply<T> {
  constructor(
    readonly status: number,
    readonly body: T,
  ) {}
}

/**
 * A JSON answer the handler already serialized (a large answer assembled from text kept between
 * requests, GET /b2b/billing): sent as it is; the contract check (tests) reads it parsed.
 */
export class SerializedJson<T> {
  private wire?: { bytes: Buffer; etag: string | undefined };

  constructor(readonly text: string) {}

  parse(): T {
    return JSON.parse(this.text) as T;
  }

  /**
   * The bytes and the ETag Express would compute for them (`etag fn`), once: a kept answer
   * (src/http/kept.ts) is sent many times, and hashing it per request was most of what it cost.
   */
  bytes(etagOf: unknown): { bytes: Buffer; etag: string | undefined } {
    if (!this.wire) {
      const bytes = Buffer.from(this.text, 'utf8');
      const etag = typeof etagOf === 'function' ? (etagOf as (body: Buffer) => string | undefined)(bytes) : undefined;
      this.wire = { bytes, etag };
    }
    return this.wire;
  }
}

type Output<R extends SuccessSpec> = R extends { kind: 'json'; schema: infer S extends z.ZodType }
  ? z.input<S> | SerializedJson<z.input<S>>
  : R extends { kind: 'binary' }
    ? Buffer
    : R extends { kind: 'csv' }
      ? CsvReply<string>
      : FileReply;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Raw bytes for signature checks on the exact body (webhooks); `schema` documents it. */
export interface RawBody {
  raw: true;
  schema: z.ZodType;
  limit: string;
}

export interface RouteSpec<G extends Guard, P, Q, B, H, R extends SuccessSpec> {
  method: Method;
  /** Express path, e.g. `/activations/:id/status`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  guard: G;
  params?: P;
  query?: Q;
  body?: B;
  /** JSON body size limit (default 100kb); `anyContentType` parses JSON whatever Content-Type says (provider callbacks). */
  bodyOptions?: { limit?: string; anyContentType?: boolean };
  headers?: H;
  response: R;
  /** Other answers with a body of their own (e.g. /readyz 503), sent by returning a Reply. */
  otherResponses?: Record<number, { description: string; schema: z.ZodType }>;
  /** Codes this route answers besides those its guard, validation and the rate limit add. */
  errors: readonly ErrorCode[];
  /** The few codes whose status depends on the route; only a status the error table allows for that code. */
  statusOverrides?: Partial<Record<ErrorCode, number>>;
  /** Outside the global per-IP limit (probes, signed provider callbacks). Default: limited. */
  rateLimit?: false;
  /** Extra text on an error status in the document (e.g. what a webhook 503 asks the provider to do). */
  errorNotes?: Partial<Record<number, string>>;
  /** Browsers on these origins may call the route with credentials (CORS headers and preflight). Default: same-origin only. */
  cors?: CorsSpec;
}

export type HandlerInput<G extends Guard, P, Q, B, H> = {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: B extends RawBody ? Buffer : Parsed<B>;
  headers: Parsed<H>;
  req: Request;
  res: Response;
} & GuardContext<G>;

export interface ApiOptions {
  registry: OpenAPIRegistry;
  guards: GuardMiddleware;
  rateLimit: RequestHandler;
  /** Tests and development: every answer is checked against the document (see contract.ts). */
  contract?: ResponseContract;
}

const ErrorDetails = z
  .union([
    z.array(z.object({ path: z.string(), message: z.string() })).openapi({ description: 'VALIDATION_ERROR: one entry per field' }),
    z.record(z.string(), z.unknown()).openapi({ description: 'Code-specific details, e.g. `existingPaymentId`' }),
  ])
  .openapi('ErrorDetails');

/** The error envelope; on a route, `code` is narrowed to the codes that route answers with that status. */
export const errorEnvelope = (codes?: readonly string[]) =>
  z.object({
    error: z.object({
      code: codes ? z.enum(codes as [string, ...string[]]) : z.string(),
      message: z.string().openapi({ description: 'Localized by Accept-Language' }),
      details: ErrorDetails.optional(),
    }),
  });
export const ErrorEnvelope = errorEnvelope().openapi('ErrorEnvelope');

const IntString = z.string().regex(/^\d+$/);
export const RATE_LIMIT_HEADERS: HeaderSpec[] = [
  { name: 'X-RateLimit-Limit', schema: IntString, required: true, description: 'Requests allowed per window and IP' },
  { name: 'X-RateLimit-Remaining', schema: IntString, required: true, description: 'Requests left in this window' },
  { name: 'X-RateLimit-Reset', schema: IntString, required: true, description: 'End of the window, Unix epoch seconds' },
];
const REQUEST_ID_HEADER: HeaderSpec = {
  name: 'X-Request-Id',
  schema: z.string(),
  required: true,
  description: 'The request id: the sane X-Request-Id the client sent, or a new one',
};
const RETRY_AFTER: HeaderSpec = { name: 'Retry-After', schema: IntString, required: true, description: 'Seconds until the window resets' };
/** On a 503 error answer (src/http/error-middleware.ts): nothing was done. */
const RETRY_LATER: HeaderSpec = {
  name: 'Retry-After',
  schema: IntString,
  required: true,
  description: 'Seconds to wait before repeating the request',
};

/** Headers on many answers are components, referenced by name. */
const SHARED_HEADERS = [REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS, RETRY_AFTER];

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** A JSON answer's bytes (`undefined`, which JSON cannot spell: an empty body). */
const jsonBytes = (body: unknown) => Buffer.from(JSON.stringify(body) ?? '');

/** Builds the one place where routes are defined: guard, validation, OpenAPI and response checks from one spec. */
export function createApi(opts: ApiOptions) {
  const router = Router();
  const corsRoutes: Array<{ pattern: RegExp; method: string; cors: CorsSpec }> = [];
  for (const h of SHARED_HEADERS) opts.registry.registerComponent('headers', h.name, headerObject(h));

  function define<
    G extends Guard,
    P extends z.ZodType | undefined,
    Q extends z.ZodType | undefined,
    B extends z.ZodType | RawBody | undefined,
    H extends z.ZodType | undefined,
    R extends SuccessSpec,
  >(
    spec: RouteSpec<G, P, Q, B, H, R>,
    handler: (input: HandlerInput<G, P, Q, B, H>) => Promise<Output<R> | Reply<unknown>> | Output<R> | Reply<unknown>,
  ): void {
    const statuses = errorStatuses(spec);
    checkOverrides(spec);
    opts.registry.registerPath(toOpenApi(spec, statuses));
    const meta: RouteMeta = {
      method: spec.method,
      docPath: docPath(spec.path),
      statusOf: (code) => spec.statusOverrides?.[code] ?? errorCodes[code].status,
    };
    const chain: RequestHandler[] = [
      (req, res, next) => {
        // A more specific document path names this request (a literal where this route has a parameter):
        // it is that path's, whatever the order of definition; without this method there, it ends in 405.
        if (shadowedBy(opts.registry, meta.docPath).some((literal) => literal.test(req.path))) return next('route');
        res.locals.route = meta;
        next();
      },
    ];
    if (spec.cors) {
      // Before the limit and the guard, so the browser can read their refusals (429, 401, 403) too.
      corsRoutes.push({ pattern: pathPattern(docPath(spec.path)), method: spec.method.toUpperCase(), cors: spec.cors });
      chain.push(corsHeaders(spec.cors));
    }
    if (spec.rateLimit !== false) chain.push(opts.rateLimit);
    chain.push(opts.guards(spec.guard));
    if (spec.body) chain.push(...bodyParser(spec.body, spec.bodyOptions));
    chain.push(validator(spec));
    chain.push((req, res, next) => {
      // The one place parsed input meets its type: validator() and the guard filled res.locals from these same schemas.
      const { principal, company } = res.locals as { principal?: Principal; company?: CompanyContext };
      const input = { ...(res.locals.input as object), req, res, ...(principal && { principal }), ...(company && { company }) };
      Promise.resolve(handler(input as unknown as HandlerInput<G, P, Q, B, H>))
        .then((out) => send(spec.response, meta, res, out))
        .catch(next);
    });
    router[spec.method](spec.path, ...chain);
  }

  function send(response: SuccessSpec, meta: RouteMeta, res: Response, out: unknown): void {
    if (out instanceof Reply) return sendJson(meta, res, out.status, out.body);
    switch (response.kind) {
      case 'json':
        return sendJson(meta, res, response.status, out);
      case 'binary':
        res.status(response.status).type(response.contentType);
        checkHeaders(meta, res);
        res.send(out);
        return;
      case 'csv': {
        const table = out as CsvReply<string>;
        res
          .status(response.status)
          .set('Content-Type', CSV_CONTENT_TYPE)
          .set('Content-Disposition', contentDisposition(table.filename, 'when-needed'));
        if (table.truncated) res.set(TRUNCATED_HEADER, 'true');
        checkHeaders(meta, res);
        res.send(toCsv(table.columns, table.rows));
        return;
      }
      case 'file': {
        const stored = out as FileReply;
        res.status(response.status).set('Content-Type', stored.contentType).set('Content-Disposition', contentDisposition(stored.filename));
        checkHeaders(meta, res);
        res.send(stored.bytes);
        return;
      }
    }
  }

  // A drifting answer never reaches the client: the check reports it and the caller answers INTERNAL_ERROR.
  function sendJson(meta: RouteMeta, res: Response, status: number, body: unknown): void {
    res.status(status);
    const serialized = body instanceof SerializedJson ? body : null;
    if (opts.contract && !opts.contract.check(meta, res, status, serialized ? serialized.parse() : body))
      throw new AppError('INTERNAL_ERROR');
    // The bytes and their Content-Type, as res.json would send them; res.send still sets Content-Length and the
    // ETag and answers 304 and HEAD. res.json's own path parses the Content-Type it has just set to add the
    // charset, a measurable share of a small answer (docs/benchmarks.md, "The per-request floor").
    const { bytes, etag } = serialized ? serialized.bytes(res.app.get('etag fn')) : { bytes: jsonBytes(body), etag: undefined };
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    if (etag) res.setHeader('ETag', etag);
    res.send(bytes);
  }

  function checkHeaders(meta: RouteMeta, res: Response): void {
    if (opts.contract && !opts.contract.checkHeaders(meta, res)) throw new AppError('INTERNAL_ERROR');
  }

  /**
   * After the router: a known path with another method answers 405 with `Allow`
   * and the envelope; an unknown path NOT_FOUND (both inside the global limit).
   */
  const methodNotAllowed: RequestHandler = (req, res, next) => {
    const allowed = methodsOf(opts.registry, req.path);
    if (allowed.length === 0) return next(new AppError('NOT_FOUND'));
    res.set('Allow', allowed.join(', '));
    next(new AppError('METHOD_NOT_ALLOWED'));
  };

  /**
   * Before the router: OPTIONS on a known path answers 204 with the same `Allow`, instead of
   * Express's automatic text answer; on an unknown path it falls through to NOT_FOUND. On a path
   * with a CORS route, a preflight from an allowed origin also gets the CORS headers.
   */
  const options: RequestHandler = (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const allowed = methodsOf(opts.registry, req.path);
    if (allowed.length === 0) return next();
    const cors = corsRoutes.filter((r) => r.pattern.test(req.path));
    if (cors.length > 0) setPreflightHeaders(req, res, cors[0].cors, [...new Set(cors.map((r) => r.method))]);
    res.set('Allow', allowed.join(', ')).status(204).end();
  };

  return { router, define, options, methodNotAllowed, registry: opts.registry };
}

export type Api = ReturnType<typeof createApi>;

// --- Request side ------------------------------------------------------------------------------

function isRaw(body: unknown): body is RawBody {
  return typeof body === 'object' && body !== null && (body as RawBody).raw === true;
}

/** Only routes with a body parse one; a missing or non-JSON body is a VALIDATION_ERROR, never `{}`. */
function bodyParser(body: z.ZodType | RawBody, options: { limit?: string; anyContentType?: boolean } = {}): RequestHandler[] {
  if (isRaw(body)) return [express.raw({ type: () => true, limit: body.limit })];
  const parse = express.json({ limit: options.limit ?? '100kb', type: options.anyContentType ? () => true : 'application/json' });
  const present: RequestHandler = (req, _res, next) => {
    if (req.body === undefined) {
      return next(validationError([{ path: '', message: 'A JSON body is required (Content-Type: application/json)' }]));
    }
    next();
  };
  return [parse, present];
}

function validator(spec: { params?: unknown; query?: unknown; body?: unknown; headers?: unknown }): RequestHandler {
  const parts = (['params', 'query', 'body', 'headers'] as const).filter((p) => spec[p] && !isRaw(spec[p]));
  return (req, res, next) => {
    const input: Record<string, unknown> = {
      body: isRaw(spec.body) ? (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)) : undefined,
    };
    const issues = [];
    for (const part of parts) {
      const source: unknown = part === 'headers' ? namedHeaders(spec.headers as z.ZodObject, req) : ((req[part] as unknown) ?? {});
      const result = (spec[part] as z.ZodType<unknown>).safeParse(source);
      if (result.success) input[part] = result.data;
      else issues.push(...issuesOf(result.error));
    }
    if (issues.length > 0) return next(validationError(issues));
    res.locals.input = input;
    next();
  };
}

/** Header schemas name headers as the document spells them (`Processor-Signature`); Node lower-cases them. */
function namedHeaders(schema: z.ZodObject, req: Request): Record<string, unknown> {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, req.headers[name.toLowerCase()]]));
}

// --- OpenAPI -----------------------------------------------------------------------------------

const docPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function errorStatuses(spec: RouteSpec<Guard, unknown, unknown, unknown, unknown, SuccessSpec>): Map<number, ErrorCode[]> {
  const input: ErrorCode[] = paramsCanFail(spec.params) || spec.query || spec.body || spec.headers ? ['VALIDATION_ERROR'] : [];
  const limited: ErrorCode[] = spec.rateLimit !== false ? ['RATE_LIMIT_EXCEEDED'] : [];
  // Every route may fail unexpectedly, and find Postgres away (SERVICE_UNAVAILABLE, with Retry-After)
  // unless its own 503 answer says so (readiness).
  const away: ErrorCode[] = spec.otherResponses?.[503] ? [] : ['SERVICE_UNAVAILABLE'];
  const codes = new Set<ErrorCode>([...guardErrors(spec.guard), ...input, ...spec.errors, ...limited, 'INTERNAL_ERROR', ...away]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = spec.statusOverrides?.[code] ?? errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * Whether a path parameter can fail validation (then the route lists VALIDATION_ERROR for it): not a
 * PathId, nor any other plain string (a document type, for one), which every segment satisfies.
 */
function paramsCanFail(params: unknown): boolean {
  const shape = (params as z.ZodObject | undefined)?.shape ?? {};
  return Object.values<z.ZodType>(shape).some((p) => p !== PathId && !isAnyString(p));
}

function isAnyString(schema: z.ZodType): boolean {
  const def = schema._zod.def as { type: string; checks?: unknown[]; format?: string };
  return def.type === 'string' && !def.checks?.length && !def.format;
}

/** A route may only move a code to a status the error table allows for it. */
function checkOverrides(spec: RouteSpec<Guard, unknown, unknown, unknown, unknown, SuccessSpec>): void {
  for (const [code, status] of Object.entries(spec.statusOverrides ?? {}) as [ErrorCode, number][]) {
    const allowed: readonly number[] = (errorCodes[code] as { alsoStatus?: readonly number[] }).alsoStatus ?? [];
    if (!allowed.includes(status)) throw new Error(`${spec.method} ${spec.path}: ${code} cannot answer ${status} (see error-codes.ts)`);
  }
}

function headerObject(h: HeaderSpec) {
  return { description: h.description, required: h.required, schema: { type: 'string' as const, ...schemaOf(h.schema) } };
}

function headersObject(headers: HeaderSpec[]): ResponseConfig['headers'] {
  return Object.fromEntries(
    headers.map((h) => [h.name, SHARED_HEADERS.includes(h) ? { $ref: `#/components/headers/${h.name}` } : headerObject(h)]),
  );
}

/** A header's JSON schema: the few shapes headers take here. */
function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const doc = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' }) as Record<string, unknown>;
  delete doc.$schema;
  return doc;
}

function toOpenApi(
  spec: RouteSpec<Guard, unknown, unknown, unknown, unknown, SuccessSpec>,
  statuses: Map<number, ErrorCode[]>,
): RouteConfig {
  const limited = spec.rateLimit !== false;
  const common = [REQUEST_ID_HEADER, ...(limited ? RATE_LIMIT_HEADERS : [])];
  const responses: RouteConfig['responses'] = { [spec.response.status]: successResponse(spec.response, common) };
  for (const [status, body] of Object.entries(spec.otherResponses ?? {})) {
    responses[status] = {
      description: body.description,
      headers: headersObject(common),
      content: { 'application/json': { schema: body.schema } },
    };
  }
  for (const [status, codes] of [...statuses].sort(([a], [b]) => a - b)) {
    // A failing rate-limit store answers 500 (503 when Postgres is away) before it could set its headers.
    const failed = status === 500 || status === 503;
    const headers = failed ? [REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS.map((h) => ({ ...h, required: false }))] : common;
    const extra = status === 429 ? [RETRY_AFTER] : status === 503 ? [RETRY_LATER] : [];
    responses[status] = {
      description: [codes.join(', '), spec.errorNotes?.[status]].filter(Boolean).join('. '),
      headers: headersObject([...(limited ? headers : [REQUEST_ID_HEADER]), ...extra]),
      content: { 'application/json': { schema: errorEnvelope(codes) } },
    };
  }
  const body = spec.body
    ? {
        required: true,
        content: { 'application/json': { schema: isRaw(spec.body) ? spec.body.schema : (spec.body as z.ZodType) } },
      }
    : undefined;
  return {
    method: spec.method,
    path: docPath(spec.path),
    operationId: operationId(spec.method, spec.path),
    summary: spec.summary,
    description: [guardDescription(spec.guard), spec.description].filter(Boolean).join('\n\n'),
    tags: [spec.tag],
    security: spec.guard.kind === 'public' ? [] : [{ bearer: [] }, { cookie: [] }],
    request: {
      params: spec.params as z.ZodObject | undefined,
      query: spec.query as z.ZodObject | undefined,
      headers: documentedHeaders(spec),
      body,
    },
    responses,
  };
}

/** The route's own request headers; signed-in routes also read X-Device-Id (the guard checks the device blocklist). */
function documentedHeaders(spec: RouteSpec<Guard, unknown, unknown, unknown, unknown, SuccessSpec>): z.ZodObject | undefined {
  const declared = spec.headers as z.ZodObject | undefined;
  if (spec.guard.kind === 'public') return declared;
  const device = { [DEVICE_ID_HEADER]: DeviceIdHeader };
  return declared ? declared.extend(device) : z.object(device);
}

function successResponse(r: SuccessSpec, common: HeaderSpec[]): ResponseConfig {
  switch (r.kind) {
    case 'json':
      return {
        description: r.description ?? 'Success',
        headers: headersObject([...common, ...(r.headers ?? [])]),
        content: { 'application/json': { schema: r.schema } },
        links: r.links,
      };
    case 'binary':
      return {
        description: r.description,
        headers: headersObject([...common, ...(r.headers ?? [])]),
        content: { [r.contentType]: { schema: { type: 'string', contentMediaType: r.contentType } } },
      };
    case 'csv':
      return {
        description: r.description,
        headers: headersObject([
          ...common,
          {
            name: 'Content-Disposition',
            schema: z.string(),
            required: true,
            description: "attachment; filename=… (plus filename*=UTF-8''… when the name is not a plain ASCII token)",
          },
          {
            name: 'X-Truncated',
            schema: z.literal('true'),
            required: false,
            description: 'Present only when the row cap clipped the result',
          },
        ]),
        content: { [CSV_CONTENT_TYPE]: { schema: { type: 'string' } } },
      };
    case 'file':
      return {
        description: r.description,
        headers: headersObject([
          ...common,
          {
            name: 'Content-Disposition',
            schema: z.string(),
            required: true,
            description: "attachment; filename=<ASCII fallback>; filename*=UTF-8''<RFC 5987 name> (clients prefer filename*)",
          },
        ]),
        content: Object.fromEntries(r.contentTypes.map((t) => [t, { schema: { type: 'string', contentMediaType: t } }])),
      };
  }
}

/** `post /auth/verify-otp` → `postAuthVerifyOtp`: stable names for generated clients. */
function operationId(method: Method, path: string): string {
  const words = path
    .split(/[/-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? `by-${w.slice(1)}` : w))
    .flatMap((w) => w.split('-'));
  return method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

// --- Which document path a request names; 405 --------------------------------------------------

interface PathEntry {
  path: string;
  pattern: RegExp;
  methods: string[];
}
interface PathTable {
  /** Most specific first: a request path belongs to the first entry whose pattern it matches. */
  entries: PathEntry[];
  /** Per document path, the patterns of the more specific paths that name some of its request paths. */
  shadows: Map<string, RegExp[]>;
}
const tables = new WeakMap<OpenAPIRegistry, PathTable>();

const SEGMENT_PARAM = /\{\w+\}/g;
const segmentsOf = (path: string) => path.split('/').filter(Boolean);
const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
const segmentPattern = (segment: string) => new RegExp(`^${escapeRegExp(segment).replace(SEGMENT_PARAM, '[^/]+')}$`, 'i');
const isLiteral = (segment: string) => !segment.includes('{');

/**
 * A document path (`/activations/{id}`) as a pattern of the request paths it names: case-insensitive
 * and with an optional trailing slash, as Express routes them.
 */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${escapeRegExp(path).replace(SEGMENT_PARAM, '[^/]+')}/?$`, 'i');
}

/**
 * Literal segments win: at the first segment where one path has a literal and the other a parameter,
 * the literal one is more specific (`/admin/companies/invites` over `/admin/companies/{id}`). Negative
 * when `a` is more specific than `b`.
 */
function bySpecificity(a: string, b: string): number {
  const [sa, sb] = [segmentsOf(a), segmentsOf(b)];
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const [la, lb] = [isLiteral(sa[i]), isLiteral(sb[i])];
    if (la !== lb) return la ? -1 : 1;
  }
  return 0;
}

/** Can one request path be named by both document paths? Segment by segment (a parameter never spans a slash). */
function overlap(a: string, b: string): boolean {
  const [sa, sb] = [segmentsOf(a), segmentsOf(b)];
  if (sa.length !== sb.length) return false;
  return sa.every((x, i) => {
    const y = sb[i];
    if (isLiteral(x) && isLiteral(y)) return x.toLowerCase() === y.toLowerCase();
    if (isLiteral(x)) return segmentPattern(y).test(x);
    if (isLiteral(y)) return segmentPattern(x).test(y);
    return true;
  });
}

/** Built once per registry, at the first request (every route is defined by then). */
function tableOf(registry: OpenAPIRegistry): PathTable {
  let table = tables.get(registry);
  if (table) return table;
  const byPath = new Map<string, Set<string>>();
  for (const d of registry.definitions) {
    if (d.type !== 'route') continue;
    const methods = byPath.get(d.route.path) ?? new Set<string>();
    methods.add(d.route.method.toUpperCase()).add('OPTIONS');
    if (d.route.method === 'get') methods.add('HEAD');
    byPath.set(d.route.path, methods);
  }
  const entries = [...byPath]
    .map(([path, methods]) => ({ path, pattern: pathPattern(path), methods: [...methods].sort() }))
    .sort((a, b) => bySpecificity(a.path, b.path));
  const shadows = new Map<string, RegExp[]>();
  for (const { path } of entries) {
    const over = entries.filter((e) => e.path !== path && bySpecificity(e.path, path) < 0 && overlap(e.path, path));
    if (over.length > 0)
      shadows.set(
        path,
        over.map((e) => e.pattern),
      );
  }
  table = { entries, shadows };
  tables.set(registry, table);
  return table;
}

const NONE: RegExp[] = [];
/** The patterns of the more specific document paths that take some of `docPath`'s request paths (usually none). */
function shadowedBy(registry: OpenAPIRegistry, docPath: string): RegExp[] {
  return tableOf(registry).shadows.get(docPath) ?? NONE;
}

/** The documented methods of the path a request names, the most specific one (HEAD goes with GET, as Express answers it). */
export function methodsOf(registry: OpenAPIRegistry, path: string): string[] {
  return tableOf(registry).entries.find((e) => e.pattern.test(path))?.methods ?? [];
}

export type { NextFunction };
