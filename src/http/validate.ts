import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { validationError } from './errors';

export type Part = 'body' | 'query' | 'params';

/** zod issues as the spec's `details: [{ path, message }]`. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.flatMap((issue) =>
    // One detail per unknown key, so clients can point at the offending field.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'Unknown field' }))
      : [{ path: issue.path.join('.'), message: issue.message }],
  );
}

/**
 * Validates one part of the request and stores the parsed value in
 * `res.locals[part]` (Express 5's req.query is read-only). Handlers read only that.
 */
export function validate<S extends z.ZodType>(part: Part, schema: S): RequestHandler {
  return (req, res, next) => {
    const result = schema.safeParse(req[part] ?? {});
    if (!result.success) return next(validationError(issuesOf(result.error)));
    res.locals[part] = result.data;
    next();
  };
}

/** Typed access to what `validate` stored. */
export function parsed<T>(res: Response, part: Part): T {
  return res.locals[part] as T;
}
