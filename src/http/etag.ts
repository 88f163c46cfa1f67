import { hash } from 'node:crypto';

/**
 * Express's default ETag (weak: `W/"<length in hex>-<SHA-1 in base64, 27 characters>"`, as the `etag`
 * package makes it), the same value computed with Node's one-shot `crypto.hash`: the package builds a
 * Hash object per answer, which cost 1.3 µs of an answer's path against 0.5 µs here
 * (docs/benchmarks.md, "The per-request floor"). Set as the app's `etag` function; the test holds it
 * equal to Express's own.
 */
export function weakEtag(body: string | Buffer, encoding?: BufferEncoding): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, encoding) : body;
  return `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').substring(0, 27)}"`;
}
