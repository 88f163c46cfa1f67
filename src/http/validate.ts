import type { z } from 'zod';

/** zod issues as the spec's `details: [{ path, message }]`. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.flatMap((issue) =>
    // One detail per unknown key, so clients can point at the offending field.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'Unknown field' }))
      : [{ path: issue.path.join('.'), message: issue.message }],
  );
}
