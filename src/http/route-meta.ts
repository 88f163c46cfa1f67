import type { ErrorCode } from './error-codes';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What the error middleware and the answer contract (contract.ts) need to know about the route that
 * answers; route.ts makes one per definition.
 */
export interface RouteMeta {
  method: Method;
  /** OpenAPI form of the path, e.g. `/activations/{id}/status`. */
  docPath: string;
  statusOf(code: ErrorCode): number;
}
