import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeAudit } from '../audit/writer';
import { deviceHasher } from '../auth/devices';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import { sqlOf } from '../db/transition';

export interface BlocklistDeps {
  orm: MikroORM;
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

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/**
 * The user and device blocklists (AUTH_BLOCKLISTED). Each change is one transaction with its
 * audit row; blocking also revokes the live sessions it concerns, so nothing is left live when
 * the block is lifted (the person signs in again). Repeating a block or an unblock changes
 * nothing and writes no audit row. The session cache hears of every change by NOTIFY.
 */
export function createBlocklistService(deps: BlocklistDeps) {
  const { orm, clock } = deps;
  const deviceHash = deviceHasher(deps.hashKey);

  async function lockUser(em: EntityManager, userId: string) {
    const [user] = isUuid(userId)
      ? await em.execute<{ blocklisted_at: Date | string | null }[]>('select blocklisted_at from users where id = ? for update', [userId])
      : [];
    if (!user) throw new AppError('ADMIN_USER_NOT_FOUND');
    return user;
  }

  async function blockUser(actor: Actor, userId: string, reason: string) {
    if (userId === actor.userId) throw new AppError('AUTH_FORBIDDEN', { message: 'You cannot blocklist your own account' });
    return orm.em.fork().transactional(async (em) => {
      const user = await lockUser(em, userId);
      if (user.blocklisted_at) return { userId, blocklisted: true, blocklistedAt: iso(user.blocklisted_at), revokedSessions: 0 };
      const now = clock();
      await em.execute('update users set blocklisted_at = ?, updated_at = ? where id = ?', [now, now, userId]);
      const revoked = await em.execute<{ id: string }[]>(
        'update sessions set revoked_at = ? where user_id = ? and revoked_at is null returning id',
        [now, userId],
      );
      await writeAudit(sqlOf(em), {
        action: 'user.blocklisted',
        actorUserId: actor.userId,
        entityType: 'user',
        entityId: userId,
        details: { reason, revokedSessions: revoked.length },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { userId, blocklisted: true, blocklistedAt: now.toISOString(), revokedSessions: revoked.length };
    });
  }

  async function unblockUser(actor: Actor, userId: string) {
    return orm.em.fork().transactional(async (em) => {
      const user = await lockUser(em, userId);
      if (user.blocklisted_at) {
        const now = clock();
        await em.execute('update users set blocklisted_at = null, updated_at = ? where id = ?', [now, userId]);
        await writeAudit(sqlOf(em), {
          action: 'user.unblocklisted',
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: userId,
          details: { blocklistedAt: iso(user.blocklisted_at) },
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
    return orm.em.fork().transactional(async (em) => {
      const now = clock();
      const added = await em.execute<{ device_hash: string }[]>(
        `insert into device_blocklist (device_hash, created_by_id, created_at) values (?, ?, ?)
         on conflict (device_hash) do nothing returning device_hash`,
        [hash, actor.userId, now],
      );
      if (added.length === 0) return { deviceId, blocklisted: true, revokedSessions: 0 };
      const revoked = await em.execute<{ id: string }[]>(
        'update sessions set revoked_at = ? where device_hash = ? and revoked_at is null returning id',
        [now, hash],
      );
      await writeAudit(sqlOf(em), {
        action: 'device.blocklisted',
        actorUserId: actor.userId,
        entityType: 'device',
        // The keyed hash names the device in the trail; the id the app sends is never stored.
        entityId: hash,
        details: { reason, revokedSessions: revoked.length },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { deviceId, blocklisted: true, revokedSessions: revoked.length };
    });
  }

  async function unblockDevice(actor: Actor, deviceId: string) {
    const hash = deviceHash(deviceId);
    return orm.em.fork().transactional(async (em) => {
      const removed = await em.execute<{ device_hash: string }[]>(
        'delete from device_blocklist where device_hash = ? returning device_hash',
        [hash],
      );
      if (removed.length > 0) {
        await writeAudit(sqlOf(em), {
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
