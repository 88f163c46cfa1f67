import path from 'node:path';
import express, { Router } from 'express';
import type { OpenAPIObject } from 'openapi3-ts/oas31';

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>activation-sys API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

/**
 * GET /openapi.json (generated from the zod schemas the routes validate with)
 * and a Swagger UI page at /docs, served from the swagger-ui-dist package.
 */
export function openApiRoutes(document: () => OpenAPIObject): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document());
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send("window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });");
  });
  router.use('/docs/assets', express.static(path.dirname(require.resolve('swagger-ui-dist/package.json')), { index: false }));
  return router;
}
