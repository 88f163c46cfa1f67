import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler, Router } from 'express';
import { z } from '../openapi/registry';
import { errorCodes, type ErrorCode } from './error-codes';
import { validate } from './validate';

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string().openapi({ description: 'Localized by Accept-Language' }),
      details: z.union([z.array(z.object({ path: z.string(), message: z.string() })), z.record(z.string(), z.unknown())]).optional(),
    }),
  })
  .openapi('ErrorEnvelope');

export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path, e.g. `/activations/:id/status`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: 'public' | 'session';
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodObject;
  response: { status: number; schema?: z.ZodType; description?: string; contentType?: string; headers?: z.ZodObject };
  /** Spec error codes this route answers with; AUTH_PHONE_EXISTS-style overrides go in `statusOverrides`. */
  errors: ErrorCode[];
  statusOverrides?: Partial<Record<ErrorCode, number>>;
}

/**
 * Declares one route once: the same zod schemas validate the request
 * (parsed values land in res.locals) and describe it in the OpenAPI document.
 */
export function defineRoute(router: Router, registry: OpenAPIRegistry, spec: RouteSpec, ...handlers: RequestHandler[]): void {
  registry.registerPath(toOpenApi(spec));
  const validators: RequestHandler[] = [];
  if (spec.params) validators.push(validate('params', spec.params));
  if (spec.query) validators.push(validate('query', spec.query));
  if (spec.body) validators.push(validate('body', spec.body));
  router[spec.method](spec.path, ...handlers.slice(0, -1), ...validators, handlers[handlers.length - 1]!);
}

function toOpenApi(spec: RouteSpec): RouteConfig {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of spec.errors) {
    const status = spec.statusOverrides?.[code] ?? errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: RouteConfig['responses'] = {
    [spec.response.status]: {
      description: spec.response.description ?? 'Success',
      headers: spec.response.headers,
      content: spec.response.schema ? { [spec.response.contentType ?? 'application/json']: { schema: spec.response.schema } } : undefined,
    },
  };
  for (const [status, codes] of byStatus) {
    responses[status] = { description: codes.join(', '), content: { 'application/json': { schema: ErrorEnvelope } } };
  }
  return {
    method: spec.method,
    path: spec.path.replace(/:(\w+)/g, '{$1}'),
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.auth === 'session' ? [{ bearer: [] }, { cookie: [] }] : [],
    request: {
      params: spec.params,
      query: spec.query as z.ZodObject | undefined,
      body: spec.body ? { content: { 'application/json': { schema: spec.body } }, required: true } : undefined,
    },
    responses,
  };
}
