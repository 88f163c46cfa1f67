// Must be imported before any schema is created: adds `.openapi()` to zod.
import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { z } from 'zod';

extendZodWithOpenApi(z);

/**
 * Component names given with `.openapi('Name')`, counted per schema. The generator keeps the first
 * schema of a name and silently uses it wherever another schema has the same name (a second
 * `Readiness` once replaced /readyz's answer in the document); test/api/openapi.test.ts asserts no
 * name is given to two schemas. Naming a schema again with its own name (registry.register) is not one.
 */
const componentNames = new Map<string, number>();
type OpenApiMethod = (this: z.ZodType, ...args: unknown[]) => z.ZodType;
const prototype = z.ZodType.prototype as unknown as { openapi: OpenApiMethod };
const openapi = prototype.openapi;
const refIdOf = (schema: z.ZodType): unknown =>
  (zodToOpenAPIRegistry.get(schema) as { _internal?: { refId?: unknown } } | undefined)?._internal?.refId;
prototype.openapi = function (this: z.ZodType, ...args: unknown[]) {
  const name = args[0];
  if (typeof name === 'string' && refIdOf(this) !== name) componentNames.set(name, (componentNames.get(name) ?? 0) + 1);
  return openapi.apply(this, args);
};

/** Names given to more than one schema (see componentNames). */
export const componentNamesGivenTwice = (): string[] => [...componentNames].filter(([, n]) => n > 1).map(([name]) => name);

export { z };

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'cookie', { type: 'apiKey', in: 'cookie', name: 'activation-sys-session' });
  return registry;
}

/** The document, built once on first use (every route is registered by then). */
export function documentOf(registry: OpenAPIRegistry, serverUrl: string): () => OpenAPIObject {
  let document: OpenAPIObject | undefined;
  return () => (document ??= buildDocument(registry, serverUrl));
}

export function buildDocument(registry: OpenAPIRegistry, serverUrl: string): OpenAPIObject {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'activation-sys API',
      version: '0.1.0',
      description:
        'SIM and eSIM activation, accounts and sessions. Errors use the envelope `{ error: { code, message, details? } }`; ' +
        'messages follow Accept-Language (`en` default, `ar`). Every route shares a global limit of 100 requests per 15 minutes per IP.',
    },
    servers: [{ url: serverUrl }],
  });
}
