import type { Logger } from 'pino';
import { writeAudit } from '../audit/writer';
import type { Db, Sql } from '../db/sql';
import { AppError, validationError } from '../http/errors';
import { isUuid } from '../http/fields';
import { STAFF_AREAS, type StaffArea } from '../http/guards';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import type { Actor } from './blocklist';
import { provisionAccount } from './provision';
import * as repo from './repository';
import type { StaffRole, StaffRow } from './repository';

export interface AdminUsersDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  logger: Pick<Logger, 'error'>;
  /** Drops this instance's cached sessions of a user at once (the NOTIFY trigger tells every other instance). */
  evictUser?: (userId: string) => void;
}

export interface AdminUserView {
  id: string;
  phone: string | null;
  email: string | null;
  name: string;
  appRole: StaffRole;
  isActive: boolean;
  managedAreas: StaffArea[] | null;
  managedAreasWrite: StaffArea[] | null;
  createdAt: string;
}

export interface CreateStaffInput {
  appRole: StaffRole;
  name: string;
  phone?: string;
  email?: string;
  managedAreas?: StaffArea[];
  managedAreasWrite?: StaffArea[];
}

export interface UpdateStaffInput {
  name?: string;
  managedAreas?: StaffArea[];
  managedAreasWrite?: StaffArea[];
}

export interface StaffListFilter extends OffsetPaging {
  role?: StaffRole;
  phone?: string;
  email?: string;
}

/** Known areas only, each once, in STAFF_AREAS order. */
const areaList = (areas: readonly string[]): StaffArea[] => STAFF_AREAS.filter((a) => areas.includes(a));

/** Write implies view: every area managed is also viewed. */
function grants(view: readonly string[], write: readonly string[]) {
  return { managedAreas: areaList([...view, ...write]), managedAreasWrite: areaList(write) };
}

const areasOnlyForAdmin = () => validationError([{ path: 'managedAreas', message: 'Only admin users hold areas' }]);

/**
 * Administration users (staff) under /admin/users, super_admin only. Each change is one transaction
 * with its audit row (`admin_user.*`). Deactivation goes through the database trigger that revokes a
 * deactivated user's sessions (whoever deactivates); every change to a user row NOTIFYs the session
 * caches, so GET /auth/session shows new areas on the next request.
 */
export function createAdminUsers(deps: AdminUsersDeps) {
  const { db, cipher, clock } = deps;

  const view = (row: StaffRow): AdminUserView => {
    const isAdmin = row.appRole === 'admin';
    return {
      id: row.id,
      phone: row.phoneEncrypted ? cipher.decrypt(row.phoneEncrypted) : null,
      email: row.emailEncrypted ? cipher.decrypt(row.emailEncrypted) : null,
      name: row.name,
      appRole: row.appRole,
      isActive: row.isActive,
      managedAreas: isAdmin ? areaList(row.managedAreas ?? []) : null,
      managedAreasWrite: isAdmin ? areaList(row.managedAreasWrite ?? []) : null,
      createdAt: row.createdAt.toISOString(),
    };
  };

  /** A staff user, optionally locked for the change; anyone else (or a malformed id) is ADMIN_USER_NOT_FOUND. */
  async function staff(sql: Sql, id: string, opts: { lock?: boolean } = {}): Promise<StaffRow> {
    const row = isUuid(id) ? await repo.findStaff(sql, id, opts) : undefined;
    if (!row) throw new AppError('ADMIN_USER_NOT_FOUND');
    return row;
  }

  const notYourself = (actor: Actor, id: string, what: string) => {
    // A refusal of who asks, not of the request's shape: the same call on another account is fine.
    if (actor.userId === id) throw new AppError('AUTH_FORBIDDEN', { message: `You cannot ${what} your own account` });
  };

  async function create(actor: Actor, input: CreateStaffInput): Promise<AdminUserView> {
    const isAdmin = input.appRole === 'admin';
    if (!isAdmin && (input.managedAreas?.length || input.managedAreasWrite?.length)) throw areasOnlyForAdmin();
    const areas = isAdmin
      ? grants(input.managedAreas ?? [], input.managedAreasWrite ?? [])
      : { managedAreas: null, managedAreasWrite: null };
    const now = clock();
    const id = await provisionAccount(
      deps,
      { name: input.name, appRole: input.appRole, phone: input.phone, email: input.email, ...areas },
      now,
      (tx, userId) =>
        writeAudit(tx, {
          action: 'admin_user.created',
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: userId,
          details: { appRole: input.appRole, ...areas },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        }).then(() => undefined),
    );
    return get(id);
  }

  async function get(id: string): Promise<AdminUserView> {
    return view(await staff(db, id));
  }

  /** Staff newest first (users_staff_created_index); `phone` / `email` are exact, through the keyed hashes. */
  async function list(filter: StaffListFilter) {
    const { rows, total } = await repo.listStaff(db, {
      role: filter.role,
      phoneHash: filter.phone ? cipher.lookupHash(filter.phone) : undefined,
      emailHash: filter.email ? cipher.lookupHash(filter.email) : undefined,
      limit: filter.limit,
      offset: offsetOf(filter),
    });
    return offsetPageBody('users', rows.map(view), total, filter);
  }

  /** Name and areas. Lists given replace the stored ones (a list left out keeps its value); write implies view. */
  async function update(actor: Actor, id: string, input: UpdateStaffInput): Promise<AdminUserView> {
    const updated = await db.transaction(async (tx) => {
      const row = await staff(tx, id, { lock: true });
      const touchesAreas = input.managedAreas !== undefined || input.managedAreasWrite !== undefined;
      if (touchesAreas && row.appRole !== 'admin') throw new AppError('ADMIN_USER_AREAS_NOT_ALLOWED');
      const before = view(row);
      const areas = touchesAreas
        ? grants(input.managedAreas ?? before.managedAreas ?? [], input.managedAreasWrite ?? before.managedAreasWrite ?? [])
        : null;
      const name = input.name ?? row.name;
      const now = clock();
      const next = await repo.updateStaff(tx, row.id, {
        name,
        managedAreas: areas?.managedAreas ?? row.managedAreas,
        managedAreasWrite: areas?.managedAreasWrite ?? row.managedAreasWrite,
        now,
      });
      const audit = (action: `admin_user.${string}`, details: Record<string, unknown>) =>
        writeAudit(tx, {
          action,
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: row.id,
          details,
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
      const areasChanged =
        areas !== null &&
        !(sameList(areas.managedAreas, before.managedAreas) && sameList(areas.managedAreasWrite, before.managedAreasWrite));
      if (areasChanged) {
        await audit('admin_user.areas_updated', {
          before: { managedAreas: before.managedAreas, managedAreasWrite: before.managedAreasWrite },
          after: areas,
        });
      }
      if (name !== row.name) await audit('admin_user.renamed', { before: row.name, after: name });
      return view(next);
    });
    deps.evictUser?.(updated.id);
    return updated;
  }

  /** is_active = false; the trigger revokes the user's live sessions in the same transaction. Repeating it changes nothing. */
  async function deactivate(actor: Actor, id: string): Promise<AdminUserView> {
    notYourself(actor, id, 'deactivate');
    const result = await db.transaction(async (tx) => {
      const row = await staff(tx, id, { lock: true });
      if (!row.isActive) return view(row);
      const live = await repo.countUnrevokedSessions(tx, row.id);
      const now = clock();
      const next = await repo.deactivateStaff(tx, row.id, now);
      await writeAudit(tx, {
        action: 'admin_user.deactivated',
        actorUserId: actor.userId,
        entityType: 'user',
        entityId: row.id,
        details: { appRole: row.appRole, revokedSessions: live },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return view(next);
    });
    deps.evictUser?.(result.id);
    return result;
  }

  /**
   * Removes the account and what hangs on it (sessions, codes, consents). A user who has orders,
   * activations or payments is refused with ADMIN_USER_DELETE_FAILED (`details.reason:
   * 'HAS_RECORDS'`): those records must keep their owner; deactivate instead. Any other failure is
   * ADMIN_USER_DELETE_FAILED too, and nothing is removed.
   */
  async function remove(actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    notYourself(actor, id, 'delete');
    try {
      await db.transaction(async (tx) => {
        const row = await staff(tx, id, { lock: true });
        const now = clock();
        await writeAudit(tx, {
          action: 'admin_user.deleted',
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: row.id,
          details: { appRole: row.appRole, name: row.name },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
        await repo.deleteUser(tx, row.id);
      });
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (isForeignKeyViolation(err)) throw new AppError('ADMIN_USER_DELETE_FAILED', { details: { reason: 'HAS_RECORDS' } });
      deps.logger.error({ err }, 'admin user not deleted');
      throw new AppError('ADMIN_USER_DELETE_FAILED');
    }
    deps.evictUser?.(id);
    return { id, deleted: true };
  }

  return { create, get, list, update, deactivate, remove };
}

export type AdminUsers = ReturnType<typeof createAdminUsers>;

const sameList = (a: readonly string[] | null, b: readonly string[] | null) => JSON.stringify(a) === JSON.stringify(b);

function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return (e?.code ?? e?.cause?.code) === '23503';
}
