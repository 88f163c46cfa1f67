import type { EntityManager } from '@mikro-orm/postgresql';
import type { IdentityType } from '../entities';

/** How many SIMs a person may hold, by identity type. */
export const SIM_LIMITS: Record<IdentityType, number> = { citizen: 10, resident: 2, visitor: 1 };

/** What an activation's failed_reason says when a limit refused it (also the create refusal's details.reason). */
export const SIM_LIMIT_EXCEEDED = 'SIM_LIMIT_EXCEEDED';

/**
 * The SIM limit is checked at three gates, each under a lock on the person's user row, so one
 * person's creates, verifications and handoffs are serialized:
 *
 * 1. Create (src/activations/create.ts): live activations (not failed, cancelled or deleted)
 *    against the limit of the person's current identity type (citizen until a verification says
 *    otherwise). A cheap early refusal; the type is not proven yet.
 * 2. Verification completes (activities/activations.ts, recordIdentityStatus): the provider proved
 *    an identity type; the person's other live activations whose identity is already completed
 *    must be fewer than that type's limit, or this activation fails. Slots go to verifications in
 *    the order they complete, so a visitor who created ten as a citizen gets exactly one.
 * 3. Handoff (startHandoff): the other activations handed to the operator (in progress or
 *    activated) must be fewer than the limit of this activation's verified type. This catches
 *    SIMs that went live by another path, or verified before gate 2 existed.
 */
export async function lockPerson(em: EntityManager, userId: string): Promise<IdentityType> {
  const [user] = await em.execute<{ identity_type: IdentityType }[]>('select identity_type from users where id = ? for update', [userId]);
  return user.identity_type;
}

/** Gate 1: live activations of the person. */
export async function liveActivations(em: EntityManager, userId: string): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from activations where user_id = ? and status not in ('failed', 'cancelled') and deleted_at is null`,
    [userId],
  );
  return Number(row.n);
}

/** Gate 2: the person's other live activations whose identity verification completed. */
export async function verifiedOthers(em: EntityManager, userId: string, activationId: string): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from activations where user_id = ? and id <> ? and identity_status = 'completed'
        and status not in ('failed', 'cancelled') and deleted_at is null`,
    [userId, activationId],
  );
  return Number(row.n);
}

/** Gate 3: the person's other activations handed to the operator. */
export async function handedOffOthers(em: EntityManager, userId: string, activationId: string): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from activations where user_id = ? and id <> ? and status in ('in_progress', 'activated') and deleted_at is null`,
    [userId, activationId],
  );
  return Number(row.n);
}
