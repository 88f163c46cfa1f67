import type { Db, Sql } from '../db/sql';
import { ACTIVE_LINK_STATUSES, type ClientType, type LinkStatus, type RequiredConsentType } from '../entities';
import { AppError } from '../http/errors';
import { sha256Hex, type PersonalDataCipher } from '../lib/crypto';
import type { DeviceCheck } from './devices';
import { findUser, markVerified } from './repository';
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
 * What redemption reads outside the link row (src/activations/latest.ts): the company's status,
 * the person's most recent activation and the package of the seat the link holds.
 */
export interface MagicLinkLookups {
  companyStatus(companyId: string): Promise<'pending' | 'approved' | 'rejected' | 'suspended' | null>;
  latestActivation(userId: string): Promise<LatestActivation | null>;
  seatPackageId(linkId: string): Promise<string | null>;
}

/** What redeeming a link reads of it. */
export interface RedeemableLink {
  id: string;
  userId: string;
  companyId: string | null;
  packageId: string | null;
  status: LinkStatus;
  usedAt: Date | null;
  expiresAt: Date;
}

/**
 * The link rows redemption reads and claims: the links area's (src/links/index.ts), handed in by the
 * composition (src/app.ts) so that auth, which the areas above sign in through, depends on none of them.
 */
export interface MagicLinkRows {
  byTokenHash(sql: Sql, tokenHash: string): Promise<RedeemableLink | undefined>;
  byId(sql: Sql, id: string): Promise<RedeemableLink | undefined>;
  /** Claims the link while it is still redeemable: false when another redemption, a revoke or expiry won. */
  claim(sql: Sql, id: string, now: Date): Promise<boolean>;
}

export interface MagicLinkDeps {
  db: Db;
  links: MagicLinkRows;
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

type LinkRefusal = 'MAGIC_LINK_INVALID' | 'MAGIC_LINK_ALREADY_USED' | 'MAGIC_LINK_REVOKED' | 'MAGIC_LINK_EXPIRED';

/**
 * Why a link cannot be redeemed now, or null when it can. Only an active link (issued, sent,
 * exported) redeems; one past its expiresAt is expired whatever its stored status (lazy expiry). A
 * `failed` link was never delivered to anybody: it reads invalid.
 */
export function refusalOf(link: { status: LinkStatus; usedAt?: Date | null; expiresAt: Date }, now: Date): LinkRefusal | null {
  if (link.status === 'used' || link.usedAt) return 'MAGIC_LINK_ALREADY_USED';
  if (link.status === 'revoked') return 'MAGIC_LINK_REVOKED';
  if (link.status === 'expired' || link.expiresAt.getTime() <= now.getTime()) return 'MAGIC_LINK_EXPIRED';
  if (!(ACTIVE_LINK_STATUSES as readonly LinkStatus[]).includes(link.status)) return 'MAGIC_LINK_INVALID';
  return null;
}

/** An activation the person goes on with (not failed or cancelled: those seats start over). */
const isLive = (a: LatestActivation | null): a is LatestActivation => !!a && a.status !== 'failed' && a.status !== 'cancelled';

/**
 * Redeems a company invitation: one use, 24-hour lifetime, only the token's hash is stored. Every
 * check runs before the link is claimed, so a refused redemption leaves the link as it was.
 */
export function createMagicLinkService(deps: MagicLinkDeps) {
  const { db, cipher, clock, sessions, lookups, links } = deps;

  async function redeem(token: string, clientType: ClientType, deviceId?: string) {
    await deps.assertDeviceAllowed(deviceId);
    const link = await links.byTokenHash(db, sha256Hex(token));
    if (!link) throw new AppError('MAGIC_LINK_INVALID');
    const refusal = refusalOf(link, clock());
    if (refusal) throw new AppError(refusal);
    if (link.companyId && (await lookups.companyStatus(link.companyId)) !== 'approved') throw new AppError('COMPANY_NOT_APPROVED');
    const user = await findUser(db, link.userId);
    if (!user) throw new AppError('MAGIC_LINK_INVALID');
    if (user.blocklistedAt) throw new AppError('AUTH_BLOCKLISTED');
    if (!user.isActive) throw new AppError('AUTH_ACCOUNT_DEACTIVATED');
    const activation = await lookups.latestActivation(user.id);
    if (activation?.status === 'activated') throw new AppError('MAGIC_LINK_USER_ALREADY_ACTIVE');

    // What the answer tells besides the session is read before the claim (the claim changes none of it).
    const live = isLive(activation) ? activation : null;
    const b2b = {
      nextStep: nextStepOf(activation),
      packageId: live?.packageId ?? link.packageId ?? (await lookups.seatPackageId(link.id)),
      activationId: live?.id ?? null,
      consentsRequired: await deps.missingConsents(user.id),
    };

    // The conditional update is the single point of truth under parallel redemptions (and a
    // concurrent revoke or re-mint): the row is claimed only while it is still redeemable.
    // Claim, sign-in and session in one transaction, and nothing read after it: a redemption that fails in
    // it (Postgres away) leaves the link redeemable for its retry, and one that committed answers 200.
    const now = clock();
    const session = await db.transaction(async (tx) => {
      if (!(await links.claim(tx, link.id, now))) throw new AppError(await lostClaim(link.id, now));
      if (!user.verifiedAt) await markVerified(tx, user.id, now);
      return sessions.issue(user.id, clientType, deviceId, tx);
    });
    return { user: signInView(user, cipher), session, b2b };
  }

  /** Why the claim found nothing: the row as it is now (another redemption, a revoke, expiry). */
  async function lostClaim(linkId: string, now: Date): Promise<LinkRefusal> {
    const current = await links.byId(db, linkId);
    return (current && refusalOf(current, now)) ?? 'MAGIC_LINK_ALREADY_USED';
  }

  return { redeem };
}

export type MagicLinkService = ReturnType<typeof createMagicLinkService>;
