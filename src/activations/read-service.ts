import type { ActivationStatus, EsimProfile, IdentityStatus, OrderStatus, SimType } from '../entities';
import { AppError, validationError } from '../http/errors';
import { parseCursor } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import { activationCodeQrPng } from '../lib/qr';
import { parseActivationCode } from '../operators/esim-code';
import { isUuid } from '../http/fields';
import type { Sql } from '../db/sql';
import { sarText } from '../lib/money';
import { historyRows, ownActivationRow, recordRows, type RecordRow, type StatusRow } from './reads';

/**
 * Read side of activations: the owner's status and history, the super_admin
 * records and the eSIM QR image. The statements are
 * reads.ts's (timestamps come back formatted by PostgreSQL as ISO 8601 UTC text).
 */
export interface ActivationReadDeps {
  db: Sql;
  cipher: PersonalDataCipher;
  config: { FEATURE_ESIM: boolean };
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

/** The spec's decimal string ("49.00") of a halalas column (bigint, as text). */
const money = (value: unknown): string => sarText(value as string);
const moneyOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : money(value));

export function createActivationReads(deps: ActivationReadDeps) {
  const { db, cipher, config } = deps;

  const decrypt = (stored: unknown): string | null => (typeof stored === 'string' && stored.length > 0 ? cipher.decrypt(stored) : null);

  /** The caller's own, non-deleted activation; anything else is ACTIVATION_NOT_FOUND, a non-uuid id included. */
  async function ownRow(userId: string, activationId: string): Promise<StatusRow> {
    if (!isUuid(activationId)) throw new AppError('ACTIVATION_NOT_FOUND');
    const row = await ownActivationRow(db, userId, activationId);
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
    const rows = await historyRows(db, userId, { status: input.status, cursor, limit: limit + 1 });
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
    const rows = await recordRows(db, {
      status: input.status,
      operatorId: input.operatorId,
      packageId: input.packageId,
      from: input.from,
      to: input.to,
      includeDeleted: input.includeDeleted,
      cursor,
      limit: limit + 1,
    });
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
        totalAmountSar: money(r.order_total_halalas),
        createdAt: s('order_created_at'),
        updatedAt: s('order_updated_at'),
      },
      orderItem: {
        id: s('order_item_id'),
        orderId: s('item_order_id'),
        packageId: s('item_package_id'),
        iccid: s('item_iccid'),
        quantity: num('item_quantity'),
        unitPriceSar: money(r.item_unit_price_halalas),
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
        priceSar: money(r.package_price_halalas),
        priceSarB2b: moneyOrNull(r.package_price_b2b_halalas),
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

  /** PNG of the issued activation code, rendered on every call and never stored. */
  async function esimQr(userId: string, activationId: string): Promise<Buffer> {
    if (!config.FEATURE_ESIM) throw new AppError('ACTIVATION_ESIM_DISABLED');
    const row = await ownRow(userId, activationId);
    const profile = esimProfileView(row.id, row.sim_type, row.status, row.esim_profile);
    if (!profile) throw new AppError('ACTIVATION_NOT_FOUND');
    return activationCodeQrPng(profile.activationCodeRaw);
  }

  return { status, history, records, esimQr };
}

export type ActivationReads = ReturnType<typeof createActivationReads>;
