import { writeAudit } from '../audit/writer';
import { deviceHasher } from '../auth/devices';
import type { Db, Tx } from '../db/sql';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import * as repo from './repository';

export interface BlocklistDeps {
  db: Db;
  clock: () => Date;
  /** DATA_HASH_KEY: device ids are stored as keyed hashes only (src/auth/devices.ts). */
  hashKey: string;
}

/** Who acts, from the verified session, and where from (for the audit row). */
export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * The user and device blocklists (AUTH_BLOCKLISTED). Each change is one transaction with its
 * audit row; blocking also revokes the live sessions it concerns, so nothing is left live when
 * the block is lifted (the person signs in again). Repeating a block or an unblock changes
 * nothing and writes no audit row. The session cache hears of every change by NOTIFY.
 */
export function createBlocklistService(deps: BlocklistDeps) {
  const { db, clock } = deps;
  const deviceHash = deviceHasher(deps.hashKey);

  async function lockUser(tx: Tx, userId: string) {
    const user = isUuid(userId) ? await repo.lockBlocklistState(tx, userId) : undefined;
    if (!user) throw new AppError('ADMIN_USER_NOT_FOUND');
    return user;
  }

  async function blockUser(actor: Actor, userId: string, reason: string) {
    if (userId === actor.userId) throw new AppError('AUTH_FORBIDDEN', { message: 'You cannot blocklist your own account' });
    return db.transaction(async (tx) => {
      const user = await lockUser(tx, userId);
      if (user.blocklistedAt) return { userId, blocklisted: true, blocklistedAt: user.blocklistedAt.toISOString(), revokedSessions: 0 };
      const now = clock();
      await repo.setBlocklisted(tx, userId, now, now);
      const revoked = await repo.revokeUserSessions(tx, userId, now);
      await writeAudit(tx, {
        action: 'user.blocklisted',
        actorUserId: actor.userId,
        entityType: 'user',
        entityId: userId,
        details: { reason, revokedSessions: revoked },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { userId, blocklisted: true, blocklistedAt: now.toISOString(), revokedSessions: revoked };
    });
  }

  async function unblockUser(actor: Actor, userId: string) {
    return db.transaction(async (tx) => {
      const user = await lockUser(tx, userId);
      if (user.blocklistedAt) {
        const now = clock();
        await repo.setBlocklisted(tx, userId, null, now);
        await writeAudit(tx, {
          action: 'user.unblocklisted',
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: userId,
          details: { blocklistedAt: user.blocklistedAt.toISOString() },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
      }
      return { userId, blocklisted: false, blocklistedAt: null, revokedSessions: 0 };
    });
  }

  async function blockDevice(actor: Actor, deviceId: string, reason: string) {
    const hash = deviceHash(deviceId);
    return db.transaction(async (tx) => {
      const now = clock();
      if (!(await repo.addDeviceBlock(tx, hash, actor.userId, now))) return { deviceId, blocklisted: true, revokedSessions: 0 };
      const revoked = await repo.revokeDeviceSessions(tx, hash, now);
      await writeAudit(tx, {
        action: 'device.blocklisted',
        actorUserId: actor.userId,
        entityType: 'device',
        // The keyed hash names the device in the trail; the id the app sends is never stored.
        entityId: hash,
        details: { reason, revokedSessions: revoked },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { deviceId, blocklisted: true, revokedSessions: revoked };
    });
  }

  async function unblockDevice(actor: Actor, deviceId: string) {
    const hash = deviceHash(deviceId);
    return db.transaction(async (tx) => {
      if (await repo.removeDeviceBlock(tx, hash)) {
        await writeAudit(tx, {
          action: 'device.unblocklisted',
          actorUserId: actor.userId,
          entityType: 'device',
          entityId: hash,
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: clock(),
        });
      }
      return { deviceId, blocklisted: false, revokedSessions: 0 };
    });
  }

  return { blockUser, unblockUser, blockDevice, unblockDevice };
}

export type BlocklistService = ReturnType<typeof createBlocklistService>;
