import { query, type Sql } from '../db/sql';
import type { AppRole } from '../entities';

/**
 * The SQL of administration: staff users (/admin/users), account provisioning (staff and invited
 * company users) and the user and device blocklists. Services call these with the pool or the
 * transaction they opened.
 */

/** Roles a super_admin gives through /admin/users (company staff are invited, end users register). */
export const STAFF_ROLES = ['admin', 'support', 'activation_officer', 'super_admin'] as const satisfies readonly AppRole[];
export type StaffRole = (typeof STAFF_ROLES)[number];
/** Spelled out in the text, not bound: the staff list's partial index (users_staff_created_index) matches on it. */
const STAFF_ROLE_LIST = STAFF_ROLES.map((r) => `'${r}'`).join(', ');

// --- Staff users ----------------------------------------------------------------------------------

export interface StaffRow {
  id: string;
  phoneEncrypted: string | null;
  emailEncrypted: string | null;
  name: string;
  appRole: StaffRole;
  isActive: boolean;
  managedAreas: string[] | null;
  managedAreasWrite: string[] | null;
  createdAt: Date;
}

const STAFF_COLUMNS = `id, phone_encrypted as "phoneEncrypted", email_encrypted as "emailEncrypted", name, app_role as "appRole",
  is_active as "isActive", managed_areas as "managedAreas", managed_areas_write as "managedAreasWrite", created_at as "createdAt"`;

const FIND_STAFF = query('admin.find-staff', `select ${STAFF_COLUMNS} from users where id = $1 and app_role in (${STAFF_ROLE_LIST})`);
const LOCK_STAFF = query(
  'admin.lock-staff',
  `select ${STAFF_COLUMNS} from users where id = $1 and app_role in (${STAFF_ROLE_LIST}) for update`,
);

/** A staff user (anyone else is not found); `lock` takes the row for the change. */
export async function findStaff(sql: Sql, id: string, opts: { lock?: boolean } = {}): Promise<StaffRow | undefined> {
  return sql.one<StaffRow>(opts.lock ? LOCK_STAFF : FIND_STAFF, [id]);
}

export interface StaffFilter {
  role?: StaffRole;
  phoneHash?: string;
  emailHash?: string;
  limit: number;
  offset: number;
}

/** Staff newest first (users_staff_created_index); phone and e-mail match their keyed hashes exactly. */
export async function listStaff(sql: Sql, filter: StaffFilter): Promise<{ rows: StaffRow[]; total: number }> {
  const where = [`app_role in (${STAFF_ROLE_LIST})`];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.role) where.push(`app_role = ${param(filter.role)}`);
  if (filter.phoneHash) where.push(`phone_hash = ${param(filter.phoneHash)}`);
  if (filter.emailHash) where.push(`email_hash = ${param(filter.emailHash)}`);
  const clause = `where ${where.join(' and ')}`;
  const n = values.length;
  const rows = await sql.rows<StaffRow>(
    `select ${STAFF_COLUMNS} from users ${clause} order by created_at desc, id desc limit $${n + 1} offset $${n + 2}`,
    [...values, filter.limit, filter.offset],
  );
  const count = await sql.one<{ total: number }>(`select count(*)::int as total from users ${clause}`, values);
  return { rows, total: count?.total ?? 0 };
}

const UPDATE_STAFF = query(
  'admin.update-staff',
  `update users set name = $2, managed_areas = $3::text[], managed_areas_write = $4::text[], updated_at = $5
    where id = $1 returning ${STAFF_COLUMNS}`,
);

export async function updateStaff(
  sql: Sql,
  id: string,
  change: { name: string; managedAreas: readonly string[] | null; managedAreasWrite: readonly string[] | null; now: Date },
): Promise<StaffRow> {
  const row = await sql.one<StaffRow>(UPDATE_STAFF, [id, change.name, change.managedAreas, change.managedAreasWrite, change.now]);
  return row!;
}

const DEACTIVATE = query(
  'admin.deactivate',
  `update users set is_active = false, updated_at = $2 where id = $1 returning ${STAFF_COLUMNS}`,
);

/** is_active = false; the database trigger revokes the user's live sessions in the same transaction. */
export async function deactivateStaff(sql: Sql, id: string, now: Date): Promise<StaffRow> {
  return (await sql.one<StaffRow>(DEACTIVATE, [id, now]))!;
}

const COUNT_UNREVOKED_SESSIONS = query(
  'admin.count-unrevoked-sessions',
  'select count(*)::int as n from sessions where user_id = $1 and revoked_at is null',
);

/** Sessions of the user not revoked yet (the deactivation's audit row counts them). */
export async function countUnrevokedSessions(sql: Sql, userId: string): Promise<number> {
  return (await sql.one<{ n: number }>(COUNT_UNREVOKED_SESSIONS, [userId]))?.n ?? 0;
}

const DELETE_USER = query('admin.delete-user', 'delete from users where id = $1');

/** Removes the account; its sessions, codes and consents go with it, a reference from orders or payments refuses it (23503). */
export async function deleteUser(sql: Sql, id: string): Promise<void> {
  await sql.exec(DELETE_USER, [id]);
}

// --- Provisioning ---------------------------------------------------------------------------------

const IDENTIFIERS_TAKEN = query(
  'admin.identifiers-taken',
  'select phone_hash = $1 as phone, email_hash = $2 as email from users where phone_hash = $1 or email_hash = $2',
);

/** Whether another account holds the phone or the e-mail (keyed hashes). */
export async function identifiersTaken(
  sql: Sql,
  phoneHash: string | null,
  emailHash: string | null,
): Promise<{ phone: boolean; email: boolean }> {
  const rows = await sql.rows<{ phone: boolean; email: boolean }>(IDENTIFIERS_TAKEN, [phoneHash, emailHash]);
  return { phone: rows.some((r) => r.phone), email: rows.some((r) => r.email) };
}

export interface NewAccountRow {
  id: string;
  name: string;
  appRole: AppRole;
  phoneEncrypted: string | null;
  phoneHash: string | null;
  emailEncrypted: string | null;
  emailHash: string | null;
  managedAreas: readonly string[] | null;
  managedAreasWrite: readonly string[] | null;
  now: Date;
}

const INSERT_ACCOUNT = query(
  'admin.insert-account',
  `insert into users (id, name, app_role, phone_encrypted, phone_hash, email_encrypted, email_hash,
                      managed_areas, managed_areas_write, verified_at, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::text[], $10, $10, $10)`,
);

/** A provisioned account, signed-in-ready: verified now, its identifiers proven (the columns' default). */
export async function insertAccount(sql: Sql, a: NewAccountRow): Promise<void> {
  await sql.exec(INSERT_ACCOUNT, [
    a.id,
    a.name,
    a.appRole,
    a.phoneEncrypted,
    a.phoneHash,
    a.emailEncrypted,
    a.emailHash,
    a.managedAreas,
    a.managedAreasWrite,
    a.now,
  ]);
}

// --- Blocklists -----------------------------------------------------------------------------------

const LOCK_BLOCKLIST_STATE = query(
  'admin.lock-blocklist-state',
  'select blocklisted_at as "blocklistedAt" from users where id = $1 for update',
);

/** The user's blocklist state, locked for the change; undefined when there is no such user. */
export async function lockBlocklistState(sql: Sql, userId: string): Promise<{ blocklistedAt: Date | null } | undefined> {
  return sql.one(LOCK_BLOCKLIST_STATE, [userId]);
}

const SET_BLOCKLISTED = query('admin.set-blocklisted', 'update users set blocklisted_at = $2, updated_at = $3 where id = $1');

/** Sets (a time) or lifts (null) the user's block. */
export async function setBlocklisted(sql: Sql, userId: string, at: Date | null, now: Date): Promise<void> {
  await sql.exec(SET_BLOCKLISTED, [userId, at, now]);
}

const REVOKE_USER_SESSIONS = query(
  'admin.revoke-user-sessions',
  'update sessions set revoked_at = $2 where user_id = $1 and revoked_at is null',
);

/** Revokes every session of the user not revoked yet, expired ones included; answers how many. */
export async function revokeUserSessions(sql: Sql, userId: string, now: Date): Promise<number> {
  return sql.exec(REVOKE_USER_SESSIONS, [userId, now]);
}

const ADD_DEVICE_BLOCK = query(
  'admin.add-device-block',
  'insert into device_blocklist (device_hash, created_by_id, created_at) values ($1, $2, $3) on conflict (device_hash) do nothing',
);

/** Adds the device; false when it was already blocklisted. */
export async function addDeviceBlock(sql: Sql, deviceHash: string, createdBy: string, now: Date): Promise<boolean> {
  const added = await sql.exec(ADD_DEVICE_BLOCK, [deviceHash, createdBy, now]);
  return added > 0;
}

const REVOKE_DEVICE_SESSIONS = query(
  'admin.revoke-device-sessions',
  'update sessions set revoked_at = $2 where device_hash = $1 and revoked_at is null',
);

/** Revokes every session opened from the device not revoked yet; answers how many. */
export async function revokeDeviceSessions(sql: Sql, deviceHash: string, now: Date): Promise<number> {
  return sql.exec(REVOKE_DEVICE_SESSIONS, [deviceHash, now]);
}

const REMOVE_DEVICE_BLOCK = query('admin.remove-device-block', 'delete from device_blocklist where device_hash = $1');

/** Lifts the device's block; false when it was not blocklisted. */
export async function removeDeviceBlock(sql: Sql, deviceHash: string): Promise<boolean> {
  return (await sql.exec(REMOVE_DEVICE_BLOCK, [deviceHash])) > 0;
}
