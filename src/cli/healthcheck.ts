/**
 * The image's HEALTHCHECK: exits 0 when GET <url> answers 200 within 3 s, 1 otherwise. Default URL: the
 * API's /healthz on PORT; the worker's container passes its own (http://127.0.0.1:<WORKER_HEALTH_PORT>/healthz).
 * Node, since the slim image has no curl.
 */
const url = process.argv[2] ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}/healthz`;

fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
  (res) => process.exit(res.status === 200 ? 0 : 1),
  () => process.exit(1),
);
