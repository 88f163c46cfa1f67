import type { Response } from 'supertest';

/**
 * Supertest types every body `any`, so nothing a test reads from it is checked. A test declares once
 * what an answer's body is (usually `z.infer` of the route's response schema) and reads typed values
 * from then on. Only the type changes: nothing is parsed or stripped, so every assertion still sees the
 * body exactly as the app sent it.
 */
export type Answer<B> = Omit<Response, 'body'> & { body: B };

export function typed<B>(res: Response): Answer<B> {
  return res;
}

/** The error envelope (src/http/error-middleware.ts); `D` is what the test expects in `details`. */
export interface ErrorBody<D = unknown> {
  error: { code: string; message: string; details: D };
}

/** The `error` object of a failed answer (any answer, typed or not). */
export function errorOf<D = unknown>(res: { body?: unknown }): ErrorBody<D>['error'] {
  return (res.body as ErrorBody<D>).error;
}
