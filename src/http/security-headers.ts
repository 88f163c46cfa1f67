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
 * configured; each request only sets them; /docs replaces the CSP with DOCS_CSP). Helmet's defaults
 * (nosniff, HSTS, Referrer-Policy no-referrer, no X-Powered-By, ...), with: the CSP above instead of
 * its page-oriented default; X-Frame-Options DENY (frame-ancestors 'none' for browsers that read only
 * the old header); Cross-Origin-Resource-Policy same-site, so a web client on a sibling origin may
 * still show the eSIM QR in an <img> or open a receipt.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
}
