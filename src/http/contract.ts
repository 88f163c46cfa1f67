import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'express';
import type { ComponentsObject, OpenAPIObject } from 'openapi3-ts/oas31';
import type { RouteMeta } from './route-meta';

export interface ContractViolation {
  route: string;
  status: number;
  problems: string[];
}

/**
 * Checks every answer a route sends against what the served document declares for
 * that route and status: the status itself, the JSON body's schema, and the
 * required headers. On in tests and development (CONTRACT_CHECKS), off in
 * production. A violation is reported through `onViolation`; the route definition
 * and the error middleware then answer INTERNAL_ERROR instead of the drifting body,
 * so a test that exercised it fails.
 */
export function createResponseContract(document: () => OpenAPIObject, onViolation: (v: ContractViolation) => void) {
  let ajv: Ajv2020 | undefined;
  const validators = new Map<string, ValidateFunction | null>();

  function responseOf(meta: RouteMeta, status: number): Record<string, unknown> | undefined {
    const operation = document().paths?.[meta.docPath]?.[meta.method] as
      { responses?: Record<string, Record<string, unknown>> } | undefined;
    return operation?.responses?.[String(status)];
  }

  function validatorFor(meta: RouteMeta, status: number, contentType: string): ValidateFunction | null {
    const key = `${meta.method} ${meta.docPath} ${status} ${contentType}`;
    if (validators.has(key)) return validators.get(key)!;
    const content = responseOf(meta, status)?.content as Record<string, { schema?: object }> | undefined;
    const schema = content?.[contentType]?.schema;
    let fn: ValidateFunction | null = null;
    if (schema) {
      ajv ??= newAjv();
      // Refs point at `#/components/...`: compile each schema inside a copy of the components.
      const components = document().components ?? {};
      fn = ajv.compile({ ...closed(schema, components), components: closed(components, components) });
    }
    validators.set(key, fn);
    return fn;
  }

  function headerProblems(meta: RouteMeta, res: Response, status: number): string[] {
    const headers = (responseOf(meta, status)?.headers ?? {}) as Record<string, { required?: boolean }>;
    return Object.entries(headers)
      .filter(([name, h]) => h.required && res.getHeader(name) === undefined)
      .map(([name]) => `required header ${name} is missing`);
  }

  const report = (meta: RouteMeta, status: number, problems: string[]) => {
    if (problems.length > 0) onViolation({ route: `${meta.method.toUpperCase()} ${meta.docPath}`, status, problems });
    return problems.length === 0;
  };

  return {
    /** A JSON answer (success or error envelope). Returns false when it breaks the contract. */
    check(meta: RouteMeta, res: Response, status: number, body: unknown): boolean {
      if (!responseOf(meta, status)) return report(meta, status, [`status ${status} is not declared for this route`]);
      const validate = validatorFor(meta, status, 'application/json');
      const problems = validate
        ? validate(body)
          ? []
          : (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message ?? 'is invalid'}`)
        : ['no JSON body is declared for this status'];
      return report(meta, status, [...problems, ...headerProblems(meta, res, status)]);
    },
    /** A non-JSON answer: the status and the required headers. */
    checkHeaders(meta: RouteMeta, res: Response): boolean {
      const status = res.statusCode;
      if (!responseOf(meta, status)) return report(meta, status, [`status ${status} is not declared for this route`]);
      return report(meta, status, headerProblems(meta, res, status));
    },
  };
}

export type ResponseContract = ReturnType<typeof createResponseContract>;

type Schema = Record<string, unknown>;

/**
 * The same schemas with every object closed (no properties beyond the declared ones), for checking
 * only: an answer carrying a field the document does not list (a leaked column, a renamed field)
 * is a violation, while the published document stays open to additions. An `allOf` of objects (how
 * an extended schema is published) is merged into one object first, since closing its parts would
 * refuse each other's properties.
 */
function closed<T>(node: T, components: ComponentsObject): T {
  if (Array.isArray(node)) return node.map((n: unknown) => closed(n, components)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const merged = mergeObjects(node as Schema, components);
  const copy: Schema = Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, closed(v, components)]));
  if (copy.type === 'object' && copy.properties !== undefined && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy as T;
}

function mergeObjects(node: Schema, components: ComponentsObject): Schema {
  if (!Array.isArray(node.allOf)) return node;
  const parts = (node.allOf as Schema[]).map((part) => resolve(part, components));
  if (!parts.every((p) => p.type === 'object' && p.properties !== undefined && !Array.isArray(p.allOf))) return node;
  const rest = { ...node };
  delete rest.allOf;
  return {
    ...rest,
    type: 'object',
    properties: Object.assign({}, ...parts.map((p) => p.properties as Schema)) as Schema,
    required: [...new Set(parts.flatMap((p) => (p.required as string[] | undefined) ?? []))],
  };
}

function resolve(part: Schema, components: ComponentsObject): Schema {
  const ref = typeof part.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(part.$ref) : null;
  return ref ? mergeObjects((components.schemas?.[ref[1]] ?? {}) as Schema, components) : part;
}

function newAjv(): Ajv2020 {
  // strict: false — OpenAPI keywords (example, discriminator, components) are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}
