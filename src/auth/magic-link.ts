import type { MikroORM } from '@mikro-orm/postgresql';
import { InvitationLink, User, type ClientType, type RequiredConsentType } from '../entities';
import { AppError } from '../http/errors';
import { sha256Hex, type PersonalDataCipher } from '../lib/crypto';
import type { DeviceCheck } from './devices';
import type { SessionService } from './sessions';
import { signInView } from './users';

export type NextStep = 'iccid_entry' | 'identity_entry' | 'identity_waiting' | 'done';

export interface LatestActivation {
  id: string;
  packageId: string | null;
  status: 'pending' | 'in_progress' | 'activated' | 'failed' | 'cancelled';
  identityStatus: 'waiting' | 'completed' | 'rejected' | 'expired' | 'error';
  identityRef: string | null;
}

/**
 * What redemption needs from other areas: the company's status (B2B portal) and
 * the person's most recent activation (src/activations/latest.ts). Until the
 * B2B portal exists, every company reads approved.
 */
export interface MagicLinkLookups {
  companyStatus(companyId: string): Promise<'pending' | 'approved' | 'rejected' | 'suspended' | null>;
  latestActivation(userId: string): Promise<LatestActivation | null>;
}

/** Stand-ins: every company approved, nobody with an activation. */
export const noLookupsYet: MagicLinkLookups = {
  companyStatus: () => Promise.resolve('approved'),
  latestActivation: () => Promise.resolve(null),
};

export interface MagicLinkDeps {
  orm: MikroORM;
  cipher: PersonalDataCipher;
  clock: () => Date;
  sessions: SessionService;
  lookups: MagicLinkLookups;
  missingConsents(userId: string): Promise<RequiredConsentType[]>;
  /** Redemption from a blocklisted device (X-Device-Id) is refused before anything else. */
  assertDeviceAllowed: DeviceCheck;
}

export function nextStepOf(activation: LatestActivation | null): NextStep {
  if (!activation || activation.status === 'failed' || activation.status === 'cancelled') return 'iccid_entry';
  if (activation.status !== 'pending' || activation.identityStatus === 'completed') return 'done';
  if (activation.identityStatus === 'waiting' && activation.identityRef) return 'identity_waiting';
  return 'identity_entry';
}

/** Redeems a company invitation: one use, 24-hour lifetime, only the token's hash is stored. */
export function createMagicLinkService(deps: MagicLinkDeps) {
  const { orm, cipher, clock, sessions, lookups } = deps;

  async function redeem(token: string, clientType: ClientType, deviceId?: string) {
    await deps.assertDeviceAllowed(deviceId);
    const em = orm.em.fork();
    const link = await em.findOne(InvitationLink, { tokenHash: sha256Hex(token) });
    if (!link) throw new AppError('MAGIC_LINK_INVALID');
    if (link.status === 'used' || link.usedAt) throw new AppError('MAGIC_LINK_ALREADY_USED');
    if (link.status === 'revoked') throw new AppError('MAGIC_LINK_REVOKED');
    if (link.status === 'expired' || link.expiresAt.getTime() <= clock().getTime()) throw new AppError('MAGIC_LINK_EXPIRED');
    if (link.companyId && (await lookups.companyStatus(link.companyId)) !== 'approved') throw new AppError('COMPANY_NOT_APPROVED');
    const user = await em.findOneOrFail(User, { id: link.user });
    if (user.blocklistedAt) throw new AppError('AUTH_BLOCKLISTED');
    if (!user.isActive) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
    const activation = await lookups.latestActivation(user.id);
    if (activation?.status === 'activated') throw new AppError('MAGIC_LINK_USER_ALREADY_ACTIVE');

    // The conditional update is the single point of truth under parallel redemptions.
    const now = clock();
    const claimed = await em.execute<{ id: string }[]>(
      `update invitation_links set status = 'used', used_at = ?, updated_at = ?
        where id = ? and used_at is null and status not in ('used', 'revoked') returning id`,
      [now, now, link.id],
    );
    if (claimed.length === 0) throw new AppError('MAGIC_LINK_ALREADY_USED');
    if (!user.verifiedAt) {
      user.verifiedAt = now;
      await em.flush();
    }
    const session = await sessions.issue(user.id, clientType, deviceId);
    return {
      user: signInView(user, cipher),
      session,
      b2b: {
        nextStep: nextStepOf(activation),
        packageId: activation?.packageId ?? link.packageId ?? null,
        activationId: activation?.id ?? null,
        consentsRequired: await deps.missingConsents(user.id),
      },
    };
  }

  return { redeem };
}

export type MagicLinkService = ReturnType<typeof createMagicLinkService>;
