import type { Sql } from '../db/sql';
import type { IdentityType } from '../entities';
import { lockIdentity, lockPerson, type SimHolder } from './repository';

/** How many SIMs a person may hold, by identity type. */
export const SIM_LIMITS: Record<IdentityType, number> = { citizen: 10, resident: 2, visitor: 1 };

/** What an activation's failed_reason says when a limit refused it (also the create refusal's details.reason). */
export const SIM_LIMIT_EXCEEDED = 'SIM_LIMIT_EXCEEDED';

/**
 * The SIM limit belongs to a person, and a person is their verified identity: the keyed hash of the
 * national id number (`activations.id_number_hash`, written when a verification starts), not the
 * account, so one person with two phones, or a seat at two companies, has one limit. It is checked
 * at three gates:
 *
 * 1. Create (src/activations/create.ts), under a lock on the caller's user row, which serializes
 *    the account's creates: the live activations (not failed, cancelled or deleted) of the account
 *    and of every identity the account has verified, against the limit of the account's current
 *    identity type (citizen until a verification says otherwise). A cheap early refusal; the identity
 *    of this SIM is not proven yet.
 * 2. Verification completes (activities/activations.ts, recordIdentityStatus), under a lock on the
 *    identity: the identity's other live activations whose verification completed, on any account,
 *    must be fewer than the limit of the type the provider proved, or this activation fails. Slots go
 *    to verifications in the order they complete, so a visitor who created ten as a citizen gets one.
 * 3. Handoff (startHandoff), under the same lock: the identity's other activations handed to the
 *    operator (in progress or activated) must be fewer than the limit of this activation's verified
 *    type. This catches SIMs that went live by another path, or verified before gate 2 existed.
 *
 * The identity lock is a transaction-scoped advisory lock on the hash (no row holds an identity), so
 * gates 2 and 3 of every account of one person are serialized and the limit is exact under parallel
 * requests. Lock order: identity first, then user rows, never the other way round.
 *
 * The locks and counts are statements of repository.ts (lockPerson, lockIdentity, liveActivations,
 * verifiedOthers, handedOffOthers); this file holds the limits and whose lock a gate takes.
 */

/** Whose SIMs gates 2 and 3 count; declared with the counts that read it (repository.ts). */
export type { SimHolder };

/** Takes the holder's lock: the identity's advisory lock, or the account's user row. */
export async function lockHolder(sql: Sql, holder: SimHolder): Promise<void> {
  if ('idNumberHash' in holder) await lockIdentity(sql, holder.idNumberHash);
  else await lockPerson(sql, holder.userId);
}
