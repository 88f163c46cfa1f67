// OPERATOR_HTTP_ENDPOINTS' parser: config.ts checks the setting at start-up, the HTTP operators (src/operators/http.ts) use its entries.
export interface OperatorEndpoint {
  slug: string;
  baseUrl: string;
  supportsEsim: boolean;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * OPERATOR_HTTP_ENDPOINTS: comma-separated `slug=https://base`, with `:esim` after the slug for
 * an operator that issues eSIM profiles (`stc:esim=https://ops.example/api,zain=https://z.example`).
 * eSIM support is configuration, not a call: the API answers it synchronously (GET /operators,
 * ACTIVATION_ESIM_UNSUPPORTED_OPERATOR), and start-up must not depend on every operator answering.
 * Throws an Error naming the first bad entry.
 */
export function parseOperatorEndpoints(value: string): OperatorEndpoint[] {
  const endpoints: OperatorEndpoint[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const [slug, flag, ...rest] = (eq > 0 ? entry.slice(0, eq) : '').split(':');
    const baseUrl = entry.slice(eq + 1).trim();
    if (!slug || !SLUG.test(slug) || rest.length > 0 || (flag !== undefined && flag !== 'esim')) {
      throw new Error(`"${entry}": expected slug=https://base or slug:esim=https://base (slug: lowercase letters, digits, -)`);
    }
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
      throw new Error(`"${entry}": the base must be an http(s) URL`);
    if (endpoints.some((e) => e.slug === slug)) throw new Error(`"${slug}" is listed twice`);
    endpoints.push({ slug, baseUrl, supportsEsim: flag === 'esim' });
  }
  if (endpoints.length === 0) throw new Error('lists no operator');
  return endpoints;
}
