import { query, type Query, type Sql } from '../db/sql';
import type { ActivationStatus, IdentityStatus, SimType } from '../entities';
import type { Cursor } from '../http/pagination';

/**
 * The SQL of the activations read side (read-service.ts): the owner's status and history, the
 * super_admin records. History is a hot path: keyset over
 * `activations_user_history_index`, named statements. Every timestamp is formatted by PostgreSQL
 * itself as ISO 8601 UTC with milliseconds, independent of the session's TimeZone and DateStyle; the
 * keyset cursor's instant keeps the stored microseconds (`cursor_at`).
 */

/** ISO 8601 UTC with milliseconds, formatted by PostgreSQL (null stays null). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const isoMicros = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface StatusRow {
  id: string;
  iccid: string;
  sim_type: SimType;
  esim_profile: unknown;
  status: ActivationStatus;
  identity_status: IdentityStatus;
  estimated_activation_seconds: number | null;
  created_at: string;
  updated_at: string;
}

export interface HistoryRow extends StatusRow {
  cursor_at: string;
  package_name_en: string;
  package_name_ar: string;
  operator_name_en: string;
  operator_name_ar: string;
}

export type RecordRow = Record<string, unknown> & { id: string; cursor_at: string };

const HISTORY_COLUMNS = `a.id, a.iccid, a.sim_type, a.esim_profile, a.status, a.estimated_activation_seconds,
       ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at, ${isoMicros('a.created_at')} as cursor_at,
       p.name_en as package_name_en, p.name_ar as package_name_ar, o.name_en as operator_name_en, o.name_ar as operator_name_ar`;

/**
 * Four fixed statement texts (cursor or not, status or not), each a named
 * prepared statement (the bench finds their plans by these names). The shape is
 * the one the partial index activations_user_history_index (user_id, created_at
 * desc, id desc) where deleted_at is null serves directly: equality on user_id,
 * the row comparison on (created_at, id), the same order, a limit; packages and
 * operators are joined by primary key for the page rows only.
 */
function historyStatement(withCursor: boolean, withStatus: boolean): Query {
  const where = ['a.user_id = $1', 'a.deleted_at is null'];
  let n = 2;
  if (withStatus) where.push(`a.status = $${n++}`);
  if (withCursor) {
    where.push(`(a.created_at, a.id) < ($${n}::timestamptz, $${n + 1}::uuid)`);
    n += 2;
  }
  return query(
    `activation-reads-history-${withCursor ? 'c' : 'f'}${withStatus ? 's' : 'a'}`,
    `select ${HISTORY_COLUMNS}
       from activations a
       join packages p on p.id = a.package_id
       join operators o on o.id = a.operator_id
      where ${where.join(' and ')}
      order by a.created_at desc, a.id desc
      limit $${n}`,
  );
}

const RECORD_COLUMNS = `
  a.id, a.order_id, a.order_item_id, a.user_id, a.operator_id, a.package_id, a.iccid, a.sim_type, a.esim_profile,
  a.status, a.identity_status, a.identity_ref, a.assigned_officer_id, ${iso('a.activated_at')} as activated_at,
  a.failed_reason, ${iso('a.retain_until')} as retain_until, ${iso('a.deletion_requested_at')} as deletion_requested_at,
  ${iso('a.deleted_at')} as deleted_at, a.estimated_activation_seconds,
  ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at, ${isoMicros('a.created_at')} as cursor_at,
  ord.user_id as order_user_id, ord.company_id as order_company_id, ord.status as order_status,
  ord.total_halalas as order_total_halalas, ${iso('ord.created_at')} as order_created_at, ${iso('ord.updated_at')} as order_updated_at,
  oi.order_id as item_order_id, oi.package_id as item_package_id, oi.iccid as item_iccid, oi.quantity as item_quantity,
  oi.unit_price_halalas as item_unit_price_halalas,
  u.name as user_name, u.email_encrypted as user_email_encrypted, u.phone_encrypted as user_phone_encrypted,
  p.operator_id as package_operator_id, p.name_en as package_name_en, p.name_ar as package_name_ar,
  p.description_en as package_description_en, p.description_ar as package_description_ar, p.data_amount_mb as package_data_amount_mb,
  p.voice_minutes as package_voice_minutes, p.sms_count as package_sms_count, p.validity_days as package_validity_days,
  p.price_halalas as package_price_halalas, p.price_b2b_halalas as package_price_b2b_halalas, p.is_active as package_is_active,
  p.is_promotional as package_is_promotional, p.is_name_customized as package_is_name_customized,
  p.is_price_customized as package_is_price_customized, ${iso('p.created_at')} as package_created_at, ${iso('p.updated_at')} as package_updated_at,
  op.slug as operator_slug, op.name_en as operator_name_en, op.name_ar as operator_name_ar, op.is_active as operator_is_active,
  op.logo_url as operator_logo_url, ${iso('op.created_at')} as operator_created_at, ${iso('op.updated_at')} as operator_updated_at`;

const OWN_ROW = query(
  'activation-reads-own-row',
  `select a.id, a.iccid, a.sim_type, a.esim_profile, a.status, a.identity_status, a.estimated_activation_seconds,
          ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at
     from activations a
    where a.id = $1 and a.user_id = $2 and a.deleted_at is null`,
);

/** The caller's own, non-deleted activation. */
export async function ownActivationRow(sql: Sql, userId: string, activationId: string): Promise<StatusRow | undefined> {
  return sql.one<StatusRow>(OWN_ROW, [activationId, userId]);
}

const HISTORY = {
  ca: historyStatement(true, false),
  cs: historyStatement(true, true),
  fa: historyStatement(false, false),
  fs: historyStatement(false, true),
};

/** One page of the owner's history (`limit` rows: the caller asks one more to know if there are more). */
export async function historyRows(
  sql: Sql,
  userId: string,
  page: { status?: ActivationStatus; cursor?: Cursor; limit: number },
): Promise<HistoryRow[]> {
  const statement = HISTORY[`${page.cursor ? 'c' : 'f'}${page.status !== undefined ? 's' : 'a'}`];
  const values: unknown[] = [userId];
  if (page.status !== undefined) values.push(page.status);
  if (page.cursor) values.push(page.cursor.createdAt, page.cursor.id);
  values.push(page.limit);
  return sql.rows<HistoryRow>(statement, values);
}

export interface RecordsFilter {
  status?: ActivationStatus;
  operatorId?: string;
  packageId?: string;
  /** ISO 8601; inclusive bounds of createdAt. */
  from?: string;
  to?: string;
  includeDeleted?: boolean;
  cursor?: Cursor;
  limit: number;
}

/** One page of every activation with its order, item, user, package and operator (a filter-built statement). */
export async function recordRows(sql: Sql, input: RecordsFilter): Promise<RecordRow[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (!input.includeDeleted) where.push('a.deleted_at is null');
  if (input.status !== undefined) where.push(`a.status = ${param(input.status)}`);
  if (input.operatorId !== undefined) where.push(`a.operator_id = ${param(input.operatorId)}::uuid`);
  if (input.packageId !== undefined) where.push(`a.package_id = ${param(input.packageId)}::uuid`);
  // Bounds at the API's millisecond resolution: a row whose createdAt reads `to` is included.
  if (input.from !== undefined) where.push(`a.created_at >= date_trunc('milliseconds', ${param(input.from)}::timestamptz)`);
  if (input.to !== undefined)
    where.push(`a.created_at < date_trunc('milliseconds', ${param(input.to)}::timestamptz) + interval '1 millisecond'`);
  if (input.cursor) where.push(`(a.created_at, a.id) < (${param(input.cursor.createdAt)}::timestamptz, ${param(input.cursor.id)}::uuid)`);
  return sql.rows<RecordRow>(
    `select ${RECORD_COLUMNS}
       from activations a
       join orders ord on ord.id = a.order_id
       join order_items oi on oi.id = a.order_item_id
       join users u on u.id = a.user_id
       join packages p on p.id = a.package_id
       join operators op on op.id = a.operator_id
      ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
      order by a.created_at desc, a.id desc
      limit ${param(input.limit)}`,
    values,
  );
}
