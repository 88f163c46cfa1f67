import type { ReadCache, ReadTag } from '../db/read-cache';
import type { Membership, StaffAccess } from './guards';
import { SerializedJson } from './route';

/** What a kept answer's route gets: the app's read cache (src/db/read-cache.ts). */
export interface KeptDeps {
  cache: ReadCache;
}

/**
 * A JSON answer served from the read cache under `key` (the route, its caller's scope and its query),
 * read and serialized once per change: `tags` names the rows it was read from (src/db/read-cache.ts).
 */
export function keptAnswer<T>(
  cache: ReadCache,
  key: string,
  load: () => Promise<T | SerializedJson<T>>,
  tags: (answer: T | SerializedJson<T>) => ReadTag[],
): Promise<SerializedJson<T>> {
  return cache.read(key, async () => {
    const answer = await load();
    const value = answer instanceof SerializedJson ? answer : new SerializedJson<T>(JSON.stringify(answer));
    return { value, tags: tags(answer) };
  });
}

/** The cache key part of a parsed query (zod gives its keys in schema order, defaults filled in). */
export const queryKey = (query: unknown) => JSON.stringify(query ?? null);

/** The staff guard's fresh role and areas, kept per user until that user's row changes. */
export function keptStaffAccess(
  cache: ReadCache,
  read: (userId: string) => Promise<StaffAccess | null>,
): (userId: string) => Promise<StaffAccess | null> {
  return (userId) => cache.read(`staff-access:${userId}`, async () => ({ value: await read(userId), tags: [`user:${userId}`] }));
}

/** The company guard's membership (company, role, company status), kept until the membership or the company changes. */
export function keptMembership(
  cache: ReadCache,
  read: (userId: string) => Promise<Membership | null>,
): (userId: string) => Promise<Membership | null> {
  return (userId) =>
    cache.read(`membership:${userId}`, async () => {
      const value = await read(userId);
      return { value, tags: [`user:${userId}`, ...(value ? [`company:${value.companyId}` as const] : [])] };
    });
}
