import { eraseDue } from '../src/compliance/erasure';
import type { Db } from '../src/db/sql';
import type { PersonalDataCipher } from '../src/lib/crypto';

export interface RetentionActivityDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock?: () => Date;
}

/**
 * The retention schedule's erasure (src/compliance/erasure.ts): each call erases at most `limit`
 * accounts past their retainUntil, one transaction each. Idempotent: an erased account is not due.
 */
export function createRetentionActivities(deps: RetentionActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    async eraseDue(input: { asOf: string; limit: number }): Promise<{ erased: number; more: boolean }> {
      return eraseDue({ db: deps.db, cipher: deps.cipher, clock }, new Date(input.asOf), input.limit);
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
