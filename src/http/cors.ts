import type { Request, RequestHandler, Response } from 'express';

/**
 * Cross-origin access for one route (RouteSpec.cors): browsers on these origins may call it with
 * credentials (the session cookie). Used by the Temporal UI's codec calls; every other route stays
 * same-origin (no CORS headers at all).
 */
export interface CorsSpec {
  /** Exact origins (`scheme://host[:port]`), e.g. `http://127.0.0.1:8233`. */
  origins: readonly string[];
  /** Request headers the browser may send besides the CORS-safelisted ones (e.g. `Content-Type`, `X-Namespace`). */
  allowHeaders: readonly string[];
  /** How long a browser may cache the preflight answer. */
  maxAgeSeconds: number;
}

/**
 * Parses a comma-separated origin list (configuration). Each must be an origin as browsers send it:
 * http(s), no path, query or credentials; `*` is refused (it cannot go with credentials).
 */
export function parseOrigins(value: string, what: string): string[] {
  const origins = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin) {
      throw new Error(`${what}: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`);
    }
  }
  return origins;
}

function allowedOrigin(req: Request, cors: CorsSpec): string | undefined {
  const origin = req.headers.origin;
  return origin && cors.origins.includes(origin) ? origin : undefined;
}

/** On the route's own answers (success or error, 401/403/429 included): the origin, if allowed, may read them. */
export function corsHeaders(cors: CorsSpec): RequestHandler {
  return (req, res, next) => {
    res.vary('Origin');
    const origin = allowedOrigin(req, cors);
    if (origin) res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    next();
  };
}

/**
 * A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin for one of
 * `methods`: the CORS answer headers. Anything else gets none, so the browser refuses the call.
 */
export function setPreflightHeaders(req: Request, res: Response, cors: CorsSpec, methods: readonly string[]): void {
  res.vary('Origin');
  const origin = allowedOrigin(req, cors);
  const method = req.headers['access-control-request-method'];
  if (!origin || !method || !methods.includes(method.toUpperCase())) return;
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Allow-Methods': methods.join(', '),
    'Access-Control-Allow-Headers': cors.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(cors.maxAgeSeconds),
  });
}
