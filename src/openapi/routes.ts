import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import helmet from 'helmet';

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>activation-sys API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

/**
 * The Swagger UI page (/docs): its own script, stylesheet and init file from
 * this origin, inline style attributes (the UI sets them), images and fonts as data or blob URLs
 * (icons, a PNG answer of "Try it out"), and calls to this origin only. Never framed.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * GET /openapi.json (generated from the zod schemas the routes validate with)
 * and a Swagger UI page at /docs, served from the swagger-ui-dist package.
 */
export function openApiRoutes(document: () => OpenAPIObject): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document());
  });
  // The page and its files are documents: the headers that act on documents too (the API's set is on already).
  router.use('/docs', documentHeaders());
  router.get('/docs', (_req, res) => {
    // The one page of the API: it runs the UI's own script and styles (the rest keep the JSON policy).
    res.set('Content-Security-Policy', DOCS_CSP).type('html').send(DOCS_PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    // No validator badge: it would load an image from another origin, which the page's policy refuses.
    res.type('application/javascript').send("window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', validatorUrl: null });");
  });
  router.use('/docs/assets', express.static(path.dirname(require.resolve('swagger-ui-dist/package.json')), { index: false }));
  return router;
}

/** The headers that act on documents, for the Swagger UI page and its assets, with the page's CSP. */
function documentHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
    xFrameOptions: { action: 'deny' },
  });
}
