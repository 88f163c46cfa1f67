// Must be imported before any schema is created: adds `.openapi()` to zod.
import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { z } from 'zod';

extendZodWithOpenApi(z);

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
