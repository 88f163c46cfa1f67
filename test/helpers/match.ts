/**
 * Jest's asymmetric matchers, typed `unknown`. @types/jest declares them `any` so they fit in any typed
 * object, which is what the no-unsafe-* rules flag wherever one sits in an object literal. As `unknown`
 * they still go everywhere a matcher takes an expected value (toEqual, toMatchObject, toHaveBeenCalledWith).
 */
export const match = {
  any: (type: unknown): unknown => expect.any(type),
  anything: (): unknown => expect.anything(),
  arrayContaining: (sample: readonly unknown[]): unknown => expect.arrayContaining(sample),
  objectContaining: (sample: object): unknown => expect.objectContaining(sample),
  stringContaining: (sample: string): unknown => expect.stringContaining(sample),
  stringMatching: (pattern: string | RegExp): unknown => expect.stringMatching(pattern),
};
