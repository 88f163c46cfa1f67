import { IDENTITY_TYPES, type IdentityType } from '../entities/user';
import { charCount, E164_PHONE, EMAIL, NOT_BLANK } from '../http/fields';
import { itemResult, type ItemResult, type ROSTER_ROW_CODES } from '../http/item-results';

/**
 * The rules of one staged row (POST /b2b/roster/stage), checked row by row so a bad row is a
 * rejection in the 200 answer, never a 400. Pure: no database, no keys.
 */

export type RosterRowCode = (typeof ROSTER_ROW_CODES)[number];
/** The column a rejection points at: a field of the row, `contact` (neither phone nor e-mail) or `row` (not an object). */
export type RosterRowField = 'row' | 'name' | 'phone' | 'email' | 'contact' | 'identityType' | 'nationality';
export type RowRejection = ItemResult<RosterRowCode, { rowNumber: number; field: RosterRowField }>;

export const MAX_NAME = 255;
export const MAX_NATIONALITY = 100;
export const MAX_EMAIL = 254;

/** A row that passed every field rule: trimmed, e-mail lower-cased, blanks as null. */
export interface StagedRow {
  rowNumber: number;
  name: string;
  phone: string | null;
  email: string | null;
  identityType: IdentityType;
  nationality: string | null;
}

const notBlank = new RegExp(NOT_BLANK);
const e164 = new RegExp(E164_PHONE);
const email = new RegExp(EMAIL);

const reject = (rowNumber: number, field: RosterRowField, code: RosterRowCode): RowRejection => itemResult(code, { rowNumber, field });

/** Absent optional cells: missing, null, or a blank string (a parsed CSV sends "" for an empty cell). */
const isAbsent = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** Every field rule of one row: the row, or every rejection it earns (one per failing field, in field order). */
export function checkRow(raw: unknown, rowNumber: number): StagedRow | RowRejection[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [reject(rowNumber, 'row', 'ROSTER_ROW_INVALID_NAME')];
  const row = raw as Record<string, unknown>;
  const rejections: RowRejection[] = [];

  const name = typeof row.name === 'string' && notBlank.test(row.name) ? row.name.trim() : null;
  if (name === null || charCount(name) > MAX_NAME) rejections.push(reject(rowNumber, 'name', 'ROSTER_ROW_INVALID_NAME'));

  const phone = optional(
    row.phone,
    (v) => e164.test(v),
    (v) => v,
  );
  if (phone === undefined) rejections.push(reject(rowNumber, 'phone', 'ROSTER_ROW_INVALID_PHONE'));
  const mail = optional(
    row.email,
    (v) => charCount(v) <= MAX_EMAIL && email.test(v),
    (v) => v.toLowerCase(),
  );
  if (mail === undefined) rejections.push(reject(rowNumber, 'email', 'ROSTER_ROW_INVALID_EMAIL'));
  if (phone === null && mail === null) rejections.push(reject(rowNumber, 'contact', 'ROSTER_ROW_MISSING_CONTACT'));

  const identityType = IDENTITY_TYPES.find((t) => t === row.identityType);
  if (!identityType) rejections.push(reject(rowNumber, 'identityType', 'ROSTER_ROW_INVALID_IDENTITY_TYPE'));

  const nationality = optional(
    row.nationality,
    (v) => charCount(v) <= MAX_NATIONALITY && !v.includes('\u0000'),
    (v) => v,
  );
  if (nationality === undefined) rejections.push(reject(rowNumber, 'nationality', 'ROSTER_ROW_INVALID_NATIONALITY'));

  if (rejections.length > 0 || name === null || phone === undefined || mail === undefined || !identityType || nationality === undefined) {
    return rejections;
  }
  return { rowNumber, name, phone, email: mail, identityType, nationality };
}

/** An optional text cell, trimmed: null when absent, the normalised value when valid, undefined when invalid. */
function optional(value: unknown, valid: (trimmed: string) => boolean, normalise: (trimmed: string) => string): string | null | undefined {
  if (isAbsent(value)) return null;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return valid(trimmed) ? normalise(trimmed) : undefined;
}

/** The contact cells of a row that may collide with another row or account, phone first. */
export function contactsOf(row: StagedRow): Array<{ field: 'phone' | 'email'; value: string }> {
  const out: Array<{ field: 'phone' | 'email'; value: string }> = [];
  if (row.phone !== null) out.push({ field: 'phone', value: row.phone });
  if (row.email !== null) out.push({ field: 'email', value: row.email });
  return out;
}

/**
 * Splits checked rows into the first occurrence of each contact and DUPLICATE_IN_BATCH rejections
 * for later rows sharing a phone or an e-mail with an earlier accepted row.
 */
export function dropBatchDuplicates(rows: StagedRow[]): { unique: StagedRow[]; rejected: RowRejection[] } {
  const seen = new Set<string>();
  const unique: StagedRow[] = [];
  const rejected: RowRejection[] = [];
  for (const row of rows) {
    const contacts = contactsOf(row);
    const clash = contacts.find((c) => seen.has(c.value));
    if (clash) {
      rejected.push(reject(row.rowNumber, clash.field, 'ROSTER_ROW_DUPLICATE_IN_BATCH'));
      continue;
    }
    for (const c of contacts) seen.add(c.value);
    unique.push(row);
  }
  return { unique, rejected };
}

export { reject as rowRejection };
