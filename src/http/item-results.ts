import { itemCodes, type ItemCode } from './error-codes';
import { z } from '../openapi/registry';

/**
 * Per-item results inside 200 responses (a rejected roster row, a link entry that failed or was
 * skipped): the item's own fields plus `code`, `messageEn` and `messageAr` from the itemCodes table.
 * Both languages are always present, whatever Accept-Language says.
 */

export type ItemResult<C extends ItemCode, F extends object> = Omit<F, 'code' | 'messageEn' | 'messageAr'> & {
  code: C;
  messageEn: string;
  messageAr: string;
};

/** `itemResult('ROSTER_ROW_INVALID_PHONE', { rowNumber: 3, field: 'phone' })`. */
export function itemResult<C extends ItemCode, F extends object>(code: C, fields: F): ItemResult<C, F> {
  const { en, ar } = itemCodes[code];
  return { ...fields, code, messageEn: en, messageAr: ar };
}

// The codes each response may carry, as the spec lists them.
export const ROSTER_ROW_CODES = [
  'ROSTER_ROW_INVALID_NAME',
  'ROSTER_ROW_INVALID_PHONE',
  'ROSTER_ROW_INVALID_EMAIL',
  'ROSTER_ROW_INVALID_IDENTITY_TYPE',
  'ROSTER_ROW_INVALID_NATIONALITY',
  'ROSTER_ROW_MISSING_CONTACT',
  'ROSTER_ROW_DUPLICATE_IN_BATCH',
  'ROSTER_ROW_ALREADY_ON_ROSTER',
  'ROSTER_ROW_CONTACT_EXISTS',
] as const satisfies readonly ItemCode[];

/** Export and reissue-expired skip with these. */
export const LINK_MINT_CODES = [
  'ROSTER_ENTRY_NOT_FOUND',
  'LINK_USER_ALREADY_ACTIVE',
  'LINK_PACKAGE_NOT_ASSIGNED',
  'ACTIVATION_QUOTA_EXCEEDED',
  'COMPANY_BALANCE_EXCEEDED',
  'LINK_PACKAGE_UNAVAILABLE',
] as const satisfies readonly ItemCode[];

/** Send also reports delivery failures. */
export const LINK_SEND_CODES = [...LINK_MINT_CODES, 'LINK_DELIVERY_FAILED'] as const satisfies readonly ItemCode[];

export const LINK_REVOKE_CODES = ['ROSTER_ENTRY_NOT_FOUND', 'LINK_ALREADY_USED', 'NO_ACTIVE_LINK'] as const satisfies readonly ItemCode[];

/**
 * The zod schema (and OpenAPI component when `name` is given) of one item result: the fields of
 * `shape`, then `code` as an enum of `codes`, `messageEn` and `messageAr`. For instance
 * `itemResultSchema({ rowNumber: z.number().int().min(1), field: z.string() }, ROSTER_ROW_CODES, 'RosterRowRejection')`.
 */
export function itemResultSchema<S extends z.ZodRawShape, const C extends readonly [ItemCode, ...ItemCode[]]>(
  shape: S,
  codes: C,
  name?: string,
) {
  const schema = z.object({
    ...shape,
    code: z.enum(codes),
    messageEn: z.string().openapi({ description: 'English message of the code' }),
    messageAr: z.string().openapi({ description: 'Arabic message of the code' }),
  });
  return name === undefined ? schema : schema.openapi(name);
}
