import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import QRCode from 'qrcode';
import type { ActivationStatus, EsimProfile, IdentityStatus, OrderStatus, SimType } from '../entities';
import { AppError, validationError } from '../http/errors';
import { parseCursor } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import { parseActivationCode } from '../operators/esim-code';
import type { OperatorRegistry } from '../operators/plugin';
import { isUuid } from '../http/fields';

/**
 * Read side of activations: the owner's status and history, the super_admin
 * records, the public operator list and the eSIM QR image.
 *
 * Queries are raw SQL on the `pg` pool behind MikroORM: history is a hot path
 * (keyset over `activations_user_history_index`, prepared statements), and every
 * timestamp is formatted by PostgreSQL itself as ISO 8601 UTC with milliseconds,
 * independent of the session's TimeZone and DateStyle.
 */
export interface ActivationReadDeps {
  orm: MikroORM;
  cipher: PersonalDataCipher;
  operators: OperatorRegistry;
  config: { FEATURE_ESIM: boolean };
  /** Defaults to the pool behind `orm`. */
  pool?: Pool;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface EsimProfileView {
  smdpAddress: string;
  matchingId: string;
  activationCodeRaw: string;
  qrUrl: string;
}

export interface ActivationStatusView {
  id: string;
  iccid: string;
  simType: SimType;
  esimProfile: EsimProfileView | null;
  status: ActivationStatus;
  identityStatus: IdentityStatus;
  estimatedActivationSeconds: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface ActivationHistoryItem {
  activationId: string;
  iccid: string;
  simType: SimType;
  esimProfile: EsimProfileView | null;
  status: ActivationStatus;
  packageNameEn: string;
  packageNameAr: string;
  operatorNameEn: string;
  operatorNameAr: string;
  estimatedActivationSeconds: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface ActivationRecord {
  activationId: string;
  orderId: string;
  orderItemId: string;
  userId: string;
  operatorId: string;
  packageId: string;
  iccid: string;
  simType: SimType;
  esimProfile: EsimProfileView | null;
  status: ActivationStatus;
  identityStatus: IdentityStatus;
  identityRef: string | null;
  assignedOfficerId: string | null;
  activatedAt: string | null;
  failedReason: string | null;
  retainUntil: string | null;
  deletionRequestedAt: string | null;
  deletedAt: string | null;
  estimatedActivationSeconds: number | null;
  createdAt: string;
  updatedAt: string;
  order: {
    id: string;
    userId: string;
    companyId: string | null;
    status: OrderStatus;
    totalAmountSar: string;
    createdAt: string;
    updatedAt: string;
  };
  orderItem: { id: string; orderId: string; packageId: string; iccid: string; quantity: number; unitPriceSar: string };
  user: { id: string; name: string; email: string | null; phone: string | null };
  package: {
    id: string;
    operatorId: string;
    nameEn: string;
    nameAr: string;
    descriptionEn: string | null;
    descriptionAr: string | null;
    dataAmountMb: number;
    voiceMinutes: number;
    smsCount: number;
    validityDays: number;
    priceSar: string;
    priceSarB2b: string | null;
    isActive: boolean;
    isPromotional: boolean;
    isNameCustomized: boolean;
    isPriceCustomized: boolean;
    createdAt: string;
    updatedAt: string;
  };
  operator: {
    id: string;
    slug: string;
    nameEn: string;
    nameAr: string;
    isActive: boolean;
    logoUrl: string | null;
    createdAt: string;
    updatedAt: string;
  };
}

export interface OperatorListItem {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  logoUrl: string | null;
  packageCount: number;
  supportsEsim: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface HistoryQuery {
  cursor?: string;
  limit?: number;
  status?: ActivationStatus;
}

export interface RecordsQuery extends HistoryQuery {
  operatorId?: string;
  packageId?: string;
  /** ISO 8601; inclusive lower bound of createdAt. */
  from?: string;
  /** ISO 8601; inclusive upper bound of createdAt. */
  to?: string;
  includeDeleted?: boolean;
}

/** `cursor_at` is the µs-precision ISO text selected by the queries; trailing zeros beyond ms are dropped. */
function cursorOf(row: { cursor_at: string; id: string }): string {
  return `${row.cursor_at.replace(/(\.\d{3})000Z$/, '$1Z')}|${row.id}`;
}

function checkLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw validationError([{ path: 'limit', message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return value;
}

/** ISO 8601 UTC with milliseconds, formatted by PostgreSQL (null stays null). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const isoMicros = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The profile as the API shows it: only once `activated` (spec eSIM semantics 3),
 * whitelisted fields (never an iccidSuffix), qrUrl always derived from the id.
 */
export function esimProfileView(id: string, simType: string, status: string, stored: unknown): EsimProfileView | null {
  if (simType !== 'esim' || status !== 'activated' || !stored || typeof stored !== 'object') return null;
  const profile = stored as Partial<EsimProfile>;
  if (typeof profile.activationCodeRaw !== 'string' || profile.activationCodeRaw.length === 0) return null;
  const parsed = parseActivationCode(profile.activationCodeRaw);
  const raw = parsed?.raw ?? profile.activationCodeRaw;
  return {
    smdpAddress: typeof profile.smdpAddress === 'string' ? profile.smdpAddress : (parsed?.smdpAddress ?? ''),
    matchingId: typeof profile.matchingId === 'string' ? profile.matchingId : (parsed?.matchingId ?? ''),
    activationCodeRaw: raw,
    qrUrl: `/activations/${id}/esim-qr`,
  };
}

interface StatusRow {
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

interface HistoryRow extends StatusRow {
  cursor_at: string;
  package_name_en: string;
  package_name_ar: string;
  operator_name_en: string;
  operator_name_ar: string;
}

type RecordRow = Record<string, unknown> & { id: string; cursor_at: string };

const HISTORY_COLUMNS = `a.id, a.iccid, a.sim_type, a.esim_profile, a.status, a.estimated_activation_seconds,
       ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at, ${isoMicros('a.created_at')} as cursor_at,
       p.name_en as package_name_en, p.name_ar as package_name_ar, o.name_en as operator_name_en, o.name_ar as operator_name_ar`;

/**
 * Four fixed statement texts (cursor or not, status or not), each a named
 * prepared statement. The shape is the one the partial index
 * activations_user_history_index (user_id, created_at desc, id desc) where
 * deleted_at is null serves directly: equality on user_id, the row comparison
 * on (created_at, id), the same order, a limit; packages and operators are
 * joined by primary key for the page rows only.
 */
function historyStatement(withCursor: boolean, withStatus: boolean): { name: string; text: string } {
  const where = ['a.user_id = $1', 'a.deleted_at is null'];
  let n = 2;
  if (withStatus) where.push(`a.status = $${n++}`);
  if (withCursor) {
    where.push(`(a.created_at, a.id) < ($${n}::timestamptz, $${n + 1}::uuid)`);
    n += 2;
  }
  return {
    name: `activation-reads-history-${withCursor ? 'c' : 'f'}${withStatus ? 's' : 'a'}`,
    text: `select ${HISTORY_COLUMNS}
             from activations a
             join packages p on p.id = a.package_id
             join operators o on o.id = a.operator_id
            where ${where.join(' and ')}
            order by a.created_at desc, a.id desc
            limit $${n}`,
  };
}

const RECORD_COLUMNS = `
  a.id, a.order_id, a.order_item_id, a.user_id, a.operator_id, a.package_id, a.iccid, a.sim_type, a.esim_profile,
  a.status, a.identity_status, a.identity_ref, a.assigned_officer_id, ${iso('a.activated_at')} as activated_at,
  a.failed_reason, ${iso('a.retain_until')} as retain_until, ${iso('a.deletion_requested_at')} as deletion_requested_at,
  ${iso('a.deleted_at')} as deleted_at, a.estimated_activation_seconds,
  ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at, ${isoMicros('a.created_at')} as cursor_at,
  ord.user_id as order_user_id, ord.company_id as order_company_id, ord.status as order_status,
  ord.total_amount_sar as order_total_amount_sar, ${iso('ord.created_at')} as order_created_at, ${iso('ord.updated_at')} as order_updated_at,
  oi.order_id as item_order_id, oi.package_id as item_package_id, oi.iccid as item_iccid, oi.quantity as item_quantity,
  oi.unit_price_sar as item_unit_price_sar,
  u.name as user_name, u.email_encrypted as user_email_encrypted, u.phone_encrypted as user_phone_encrypted,
  p.operator_id as package_operator_id, p.name_en as package_name_en, p.name_ar as package_name_ar,
  p.description_en as package_description_en, p.description_ar as package_description_ar, p.data_amount_mb as package_data_amount_mb,
  p.voice_minutes as package_voice_minutes, p.sms_count as package_sms_count, p.validity_days as package_validity_days,
  p.price_sar as package_price_sar, p.price_sar_b2b as package_price_sar_b2b, p.is_active as package_is_active,
  p.is_promotional as package_is_promotional, p.is_name_customized as package_is_name_customized,
  p.is_price_customized as package_is_price_customized, ${iso('p.created_at')} as package_created_at, ${iso('p.updated_at')} as package_updated_at,
  op.slug as operator_slug, op.name_en as operator_name_en, op.name_ar as operator_name_ar, op.is_active as operator_is_active,
  op.logo_url as operator_logo_url, ${iso('op.created_at')} as operator_created_at, ${iso('op.updated_at')} as operator_updated_at`;

/** numeric(12,2) already comes back as text with two decimals; this keeps that true for any scale. */
function money(value: unknown): string {
  const text = String(value);
  return /^-?\d+\.\d{2}$/.test(text) ? text : Number(text).toFixed(2);
}
const moneyOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : money(value));

export function createActivationReads(deps: ActivationReadDeps) {
  const { cipher, operators, config } = deps;
  let poolPromise: Promise<Pool> | undefined = deps.pool ? Promise.resolve(deps.pool) : undefined;
  const pool = () => (poolPromise ??= deps.orm.em.getConnection().getNativeClient());

  async function query<T>(text: string, values: unknown[], name?: string): Promise<T[]> {
    const result = await (await pool()).query({ name, text, values });
    return result.rows as T[];
  }

  const decrypt = (stored: unknown): string | null => (typeof stored === 'string' && stored.length > 0 ? cipher.decrypt(stored) : null);

  /** The caller's own, non-deleted activation; anything else is ACTIVATION_NOT_FOUND, a non-uuid id included. */
  async function ownRow(userId: string, activationId: string): Promise<StatusRow> {
    if (!isUuid(activationId)) throw new AppError('ACTIVATION_NOT_FOUND');
    const rows = await query<StatusRow>(
      `select a.id, a.iccid, a.sim_type, a.esim_profile, a.status, a.identity_status, a.estimated_activation_seconds,
              ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at
         from activations a
        where a.id = $1 and a.user_id = $2 and a.deleted_at is null`,
      [activationId, userId],
      'activation-reads-own-row',
    );
    const row = rows[0];
    if (!row) throw new AppError('ACTIVATION_NOT_FOUND');
    return row;
  }

  async function status(userId: string, activationId: string): Promise<ActivationStatusView> {
    const row = await ownRow(userId, activationId);
    return {
      id: row.id,
      iccid: row.iccid,
      simType: row.sim_type,
      esimProfile: esimProfileView(row.id, row.sim_type, row.status, row.esim_profile),
      status: row.status,
      identityStatus: row.identity_status,
      estimatedActivationSeconds: row.estimated_activation_seconds,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  async function history(userId: string, input: HistoryQuery = {}): Promise<Page<ActivationHistoryItem>> {
    const limit = checkLimit(input.limit);
    const cursor = input.cursor !== undefined ? parseCursor(input.cursor) : undefined;
    const statement = historyStatement(cursor !== undefined, input.status !== undefined);
    const values: unknown[] = [userId];
    if (input.status !== undefined) values.push(input.status);
    if (cursor) values.push(cursor.createdAt, cursor.id);
    values.push(limit + 1);
    const rows = await query<HistoryRow>(statement.text, values, statement.name);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return {
      items: page.map((row) => ({
        activationId: row.id,
        iccid: row.iccid,
        simType: row.sim_type,
        esimProfile: esimProfileView(row.id, row.sim_type, row.status, row.esim_profile),
        status: row.status,
        packageNameEn: row.package_name_en,
        packageNameAr: row.package_name_ar,
        operatorNameEn: row.operator_name_en,
        operatorNameAr: row.operator_name_ar,
        estimatedActivationSeconds: row.estimated_activation_seconds,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
      nextCursor: hasMore ? cursorOf(page[page.length - 1]) : null,
      hasMore,
    };
  }

  async function records(input: RecordsQuery = {}): Promise<Page<ActivationRecord>> {
    const limit = checkLimit(input.limit);
    const cursor = input.cursor !== undefined ? parseCursor(input.cursor) : undefined;
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
    if (cursor) where.push(`(a.created_at, a.id) < (${param(cursor.createdAt)}::timestamptz, ${param(cursor.id)}::uuid)`);
    const rows = await query<RecordRow>(
      `select ${RECORD_COLUMNS}
         from activations a
         join orders ord on ord.id = a.order_id
         join order_items oi on oi.id = a.order_item_id
         join users u on u.id = a.user_id
         join packages p on p.id = a.package_id
         join operators op on op.id = a.operator_id
        ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
        order by a.created_at desc, a.id desc
        limit ${param(limit + 1)}`,
      values,
    );
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { items: page.map(recordView), nextCursor: hasMore ? cursorOf(page[page.length - 1]) : null, hasMore };
  }

  function recordView(r: RecordRow): ActivationRecord {
    const s = (key: string) => r[key] as string;
    const sn = (key: string) => (r[key] ?? null) as string | null;
    const num = (key: string) => r[key] as number;
    const bool = (key: string) => r[key] as boolean;
    return {
      activationId: r.id,
      orderId: s('order_id'),
      orderItemId: s('order_item_id'),
      userId: s('user_id'),
      operatorId: s('operator_id'),
      packageId: s('package_id'),
      iccid: s('iccid'),
      simType: s('sim_type') as SimType,
      esimProfile: esimProfileView(r.id, s('sim_type'), s('status'), r.esim_profile),
      status: s('status') as ActivationStatus,
      identityStatus: s('identity_status') as IdentityStatus,
      identityRef: sn('identity_ref'),
      assignedOfficerId: sn('assigned_officer_id'),
      activatedAt: sn('activated_at'),
      failedReason: sn('failed_reason'),
      retainUntil: sn('retain_until'),
      deletionRequestedAt: sn('deletion_requested_at'),
      deletedAt: sn('deleted_at'),
      estimatedActivationSeconds: (r.estimated_activation_seconds ?? null) as number | null,
      createdAt: s('created_at'),
      updatedAt: s('updated_at'),
      order: {
        id: s('order_id'),
        userId: s('order_user_id'),
        companyId: sn('order_company_id'),
        status: s('order_status') as OrderStatus,
        totalAmountSar: money(r.order_total_amount_sar),
        createdAt: s('order_created_at'),
        updatedAt: s('order_updated_at'),
      },
      orderItem: {
        id: s('order_item_id'),
        orderId: s('item_order_id'),
        packageId: s('item_package_id'),
        iccid: s('item_iccid'),
        quantity: num('item_quantity'),
        unitPriceSar: money(r.item_unit_price_sar),
      },
      user: {
        id: s('user_id'),
        name: s('user_name'),
        email: decrypt(r.user_email_encrypted),
        phone: decrypt(r.user_phone_encrypted),
      },
      package: {
        id: s('package_id'),
        operatorId: s('package_operator_id'),
        nameEn: s('package_name_en'),
        nameAr: s('package_name_ar'),
        descriptionEn: sn('package_description_en'),
        descriptionAr: sn('package_description_ar'),
        dataAmountMb: num('package_data_amount_mb'),
        voiceMinutes: num('package_voice_minutes'),
        smsCount: num('package_sms_count'),
        validityDays: num('package_validity_days'),
        priceSar: money(r.package_price_sar),
        priceSarB2b: moneyOrNull(r.package_price_sar_b2b),
        isActive: bool('package_is_active'),
        isPromotional: bool('package_is_promotional'),
        isNameCustomized: bool('package_is_name_customized'),
        isPriceCustomized: bool('package_is_price_customized'),
        createdAt: s('package_created_at'),
        updatedAt: s('package_updated_at'),
      },
      operator: {
        id: s('operator_id'),
        slug: s('operator_slug'),
        nameEn: s('operator_name_en'),
        nameAr: s('operator_name_ar'),
        isActive: bool('operator_is_active'),
        logoUrl: sn('operator_logo_url'),
        createdAt: s('operator_created_at'),
        updatedAt: s('operator_updated_at'),
      },
    };
  }

  async function listOperators(): Promise<{ data: OperatorListItem[] }> {
    const rows = await query<{
      id: string;
      slug: string;
      name_en: string;
      name_ar: string;
      logo_url: string | null;
      created_at: string;
      updated_at: string;
    }>(
      `select id, slug, name_en, name_ar, logo_url, ${iso('created_at')} as created_at, ${iso('updated_at')} as updated_at
         from operators
        where kind = 'telecom'
        order by name_en, id`,
      [],
      'activation-reads-operators',
    );
    return {
      data: rows.map((row) => ({
        id: row.id,
        slug: row.slug,
        nameEn: row.name_en,
        nameAr: row.name_ar,
        logoUrl: row.logo_url,
        packageCount: 0,
        supportsEsim: operators.supportsEsim(row.slug),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
    };
  }

  /** PNG of the issued activation code, rendered on every call and never stored. */
  async function esimQr(userId: string, activationId: string): Promise<Buffer> {
    if (!config.FEATURE_ESIM) throw new AppError('ACTIVATION_ESIM_DISABLED');
    const row = await ownRow(userId, activationId);
    const profile = esimProfileView(row.id, row.sim_type, row.status, row.esim_profile);
    if (!profile) throw new AppError('ACTIVATION_NOT_FOUND');
    return QRCode.toBuffer(profile.activationCodeRaw, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 512 });
  }

  return { status, history, records, operators: listOperators, esimQr };
}

export type ActivationReads = ReturnType<typeof createActivationReads>;
