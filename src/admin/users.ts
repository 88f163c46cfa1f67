import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { writeAudit } from '../audit/writer';
import type { AppRole } from '../entities';
import { AppError, validationError } from '../http/errors';
import { isUuid } from '../http/fields';
import { STAFF_AREAS, type StaffArea } from '../http/guards';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import type { Actor } from './blocklist';
import { textArray } from '../db/arrays';
import { provisionAccount } from './provision';
import { sqlOf } from '../db/transition';

/** Roles a super_admin gives through /admin/users (company staff are invited, end users register). */
export const STAFF_ROLES = ['admin', 'support', 'activation_officer', 'super_admin'] as const satisfies readonly AppRole[];
export type StaffRole = (typeof STAFF_ROLES)[number];
const STAFF_ROLE_LIST = STAFF_ROLES.map((r) => `'${r}'`).join(', ');

export interface AdminUsersDeps {
  orm: MikroORM;
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

interface Row {
  id: string;
  phone_encrypted: string | null;
  email_encrypted: string | null;
  name: string;
  app_role: StaffRole;
  is_active: boolean;
  managed_areas: string[] | null;
  managed_areas_write: string[] | null;
  created_at: Date | string;
}
const COLUMNS = 'id, phone_encrypted, email_encrypted, name, app_role, is_active, managed_areas, managed_areas_write, created_at';

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
  const { orm, cipher, clock } = deps;

  const view = (row: Row): AdminUserView => {
    const isAdmin = row.app_role === 'admin';
    return {
      id: row.id,
      phone: row.phone_encrypted ? cipher.decrypt(row.phone_encrypted) : null,
      email: row.email_encrypted ? cipher.decrypt(row.email_encrypted) : null,
      name: row.name,
      appRole: row.app_role,
      isActive: row.is_active,
      managedAreas: isAdmin ? areaList(row.managed_areas ?? []) : null,
      managedAreasWrite: isAdmin ? areaList(row.managed_areas_write ?? []) : null,
      createdAt: new Date(row.created_at).toISOString(),
    };
  };

  /** A staff user, locked for the change; anyone else (or a malformed id) is ADMIN_USER_NOT_FOUND. */
  async function lockStaff(em: EntityManager, id: string): Promise<Row> {
    const [row] = isUuid(id)
      ? await em.execute<Row[]>(`select ${COLUMNS} from users where id = ? and app_role in (${STAFF_ROLE_LIST}) for update`, [id])
      : [];
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
      (em, userId) =>
        writeAudit(sqlOf(em), {
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
    const [row] = isUuid(id)
      ? await orm.em.fork().execute<Row[]>(`select ${COLUMNS} from users where id = ? and app_role in (${STAFF_ROLE_LIST})`, [id])
      : [];
    if (!row) throw new AppError('ADMIN_USER_NOT_FOUND');
    return view(row);
  }

  /** Staff newest first (users_staff_created_index); `phone` / `email` are exact, through the keyed hashes. */
  async function list(filter: StaffListFilter) {
    const where = [`app_role in (${STAFF_ROLE_LIST})`];
    const params: unknown[] = [];
    if (filter.role) {
      where.push('app_role = ?');
      params.push(filter.role);
    }
    if (filter.phone) {
      where.push('phone_hash = ?');
      params.push(cipher.lookupHash(filter.phone));
    }
    if (filter.email) {
      where.push('email_hash = ?');
      params.push(cipher.lookupHash(filter.email));
    }
    const clause = `where ${where.join(' and ')}`;
    const em = orm.em.fork();
    const rows = await em.execute<Row[]>(`select ${COLUMNS} from users ${clause} order by created_at desc, id desc limit ? offset ?`, [
      ...params,
      filter.limit,
      offsetOf(filter),
    ]);
    const [count] = await em.execute<{ total: string | number }[]>(`select count(*) as total from users ${clause}`, params);
    return offsetPageBody('users', rows.map(view), Number(count.total), filter);
  }

  /** Name and areas. Lists given replace the stored ones (a list left out keeps its value); write implies view. */
  async function update(actor: Actor, id: string, input: UpdateStaffInput): Promise<AdminUserView> {
    const updated = await orm.em.fork().transactional(async (em) => {
      const row = await lockStaff(em, id);
      const touchesAreas = input.managedAreas !== undefined || input.managedAreasWrite !== undefined;
      if (touchesAreas && row.app_role !== 'admin') throw new AppError('ADMIN_USER_AREAS_NOT_ALLOWED');
      const before = view(row);
      const areas = touchesAreas
        ? grants(input.managedAreas ?? before.managedAreas ?? [], input.managedAreasWrite ?? before.managedAreasWrite ?? [])
        : null;
      const name = input.name ?? row.name;
      const now = clock();
      const [next] = await em.execute<Row[]>(
        `update users set name = ?, managed_areas = ?::text[], managed_areas_write = ?::text[], updated_at = ? where id = ? returning ${COLUMNS}`,
        [
          name,
          textArray(areas?.managedAreas ?? row.managed_areas),
          textArray(areas?.managedAreasWrite ?? row.managed_areas_write),
          now,
          row.id,
        ],
      );
      const audit = (action: `admin_user.${string}`, details: Record<string, unknown>) =>
        writeAudit(sqlOf(em), {
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
    const result = await orm.em.fork().transactional(async (em) => {
      const row = await lockStaff(em, id);
      if (!row.is_active) return view(row);
      const [live] = await em.execute<{ n: string | number }[]>(
        'select count(*) as n from sessions where user_id = ? and revoked_at is null',
        [row.id],
      );
      const now = clock();
      const [next] = await em.execute<Row[]>(`update users set is_active = false, updated_at = ? where id = ? returning ${COLUMNS}`, [
        now,
        row.id,
      ]);
      await writeAudit(sqlOf(em), {
        action: 'admin_user.deactivated',
        actorUserId: actor.userId,
        entityType: 'user',
        entityId: row.id,
        details: { appRole: row.app_role, revokedSessions: Number(live.n) },
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
      await orm.em.fork().transactional(async (em) => {
        const row = await lockStaff(em, id);
        const now = clock();
        await writeAudit(sqlOf(em), {
          action: 'admin_user.deleted',
          actorUserId: actor.userId,
          entityType: 'user',
          entityId: row.id,
          details: { appRole: row.app_role, name: row.name },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
        await em.execute('delete from users where id = ?', [row.id]);
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
