import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The policy of every answer: JSON, CSV, PDF, PNG and errors are never pages, so nothing they hold
 * may load, run, submit or be framed (a JSON body rendered by a confused browser stays inert).
 */
const API_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/**
 * The Swagger UI page (/docs, src/openapi/routes.ts): its own script, stylesheet and init file from
 * this origin, inline style attributes (the UI sets them), images and fonts as data or blob URLs
 * (icons, a PNG answer of "Try it out"), and calls to this origin only. Never framed.
 */
export const DOCS_CSP = [
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
 * Security headers on every answer, built once per app (helmet computes the header values when it is
 * configured; each request only sets them). An API's set, as OWASP's REST Security Cheat Sheet lists it:
 * the CSP above (frame-ancestors 'none' and nothing to load), HSTS, nosniff, X-Frame-Options DENY (for
 * browsers that read only the old header), no Referer, no X-Powered-By, and Cross-Origin-Resource-Policy
 * same-site, so a web client on a sibling origin may still show the eSIM QR in an <img> or open a receipt.
 *
 * Not the headers that act on documents only (Cross-Origin-Opener-Policy, Origin-Agent-Cluster,
 * X-DNS-Prefetch-Control, X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection): on a
 * JSON answer they protect nothing, and every answer paid for them (docs/benchmarks.md, "The per-request
 * floor"). The one document, /docs, gets them (documentHeaders).
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
}

/** The headers that act on documents, for the Swagger UI page and its assets, with the page's CSP. */
export function documentHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
    xFrameOptions: { action: 'deny' },
  });
}
