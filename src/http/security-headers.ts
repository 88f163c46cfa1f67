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
 * Security headers on every answer, built once per app (helmet computes the header values when it is
 * configured; each request only sets them). An API's set, as OWASP's REST Security Cheat Sheet lists it:
 * the CSP above (frame-ancestors 'none' and nothing to load), HSTS, nosniff, X-Frame-Options DENY (for
 * browsers that read only the old header), no Referer, no X-Powered-By, and Cross-Origin-Resource-Policy
 * same-site, so a web client on a sibling origin may still show the eSIM QR in an <img> or open a receipt.
 *
 * Not the headers that act on documents only (Cross-Origin-Opener-Policy, Origin-Agent-Cluster,
 * X-DNS-Prefetch-Control, X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection): on a
 * JSON answer they protect nothing, and every answer paid for them (docs/benchmarks.md, "The per-request
 * floor"). The one document, /docs, gets them (src/openapi/routes.ts).
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
