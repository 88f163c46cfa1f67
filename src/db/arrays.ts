/**
 * PostgreSQL array literals for `= any(?)` and `unnest(?)` parameters (the query builder would spread a
 * JS array into a list of parameters instead).
 */

/** uuid[]: only ever built from validated UUIDs. */
export const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

/** text[]: every element quoted and escaped, null elements as NULL; a null array stays null. */
export function textArray(values: readonly (string | null)[] | null): string | null {
  if (values === null) return null;
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}
