import { E164Phone, Email, text } from '../http/fields';
import { z } from '../openapi/registry';
import { FX_CURRENCIES } from '../lib/money';

export const DEFAULT_VAT_RATE_PERCENT = 15;

/** Optional text: omitted or null both mean "not set" (a whole-object upsert clears what it omits). */
const optionalText = (max: number, what: string, description: string) =>
  text(1, max, what)
    .nullable()
    .optional()
    .openapi({ description: `${description}; omit or null to clear` });

/**
 * The body of PATCH /admin/settings/organization: the whole object, validated against the full
 * schema (spec "Organization settings"). Lengths the spec leaves open are bounded here.
 */
export const OrganizationSettingsBody = z
  .strictObject({
    legalNameEn: text(1, 255, 'Legal name (English)').openapi({ description: 'Seller legal name printed on English documents' }),
    legalNameAr: text(1, 255, 'Legal name (Arabic)').openapi({ description: 'Seller legal name printed on Arabic documents' }),
    vatNumber: optionalText(30, 'VAT number', 'VAT registration number; required when showVatOnReceipts is true'),
    crNumber: optionalText(30, 'CR number', 'Commercial registration number'),
    addressEn: optionalText(500, 'Address (English)', 'Seller address, English'),
    addressAr: optionalText(500, 'Address (Arabic)', 'Seller address, Arabic'),
    supportEmail: Email.nullable().optional().openapi({ description: 'Printed in the document footer; omit or null to clear' }),
    supportPhone: E164Phone.nullable().optional().openapi({ description: 'Printed in the document footer (E.164); omit or null to clear' }),
    showVatOnReceipts: z.boolean().default(false).openapi({ description: 'Print the VAT-included line (needs vatNumber)' }),
    vatRatePercent: z.number().min(0).max(100).default(DEFAULT_VAT_RATE_PERCENT).openapi({ description: 'VAT rate, 0-100' }),
  })
  .refine((s) => !s.showVatOnReceipts || (s.vatNumber !== undefined && s.vatNumber !== null), {
    path: ['vatNumber'],
    message: 'vatNumber is required when showVatOnReceipts is true',
  })
  .openapi('OrganizationSettingsRequest', {
    anyOf: [
      { properties: { showVatOnReceipts: { const: false } } },
      { not: { required: ['showVatOnReceipts'] } },
      { required: ['vatNumber'], properties: { vatNumber: { type: 'string' } } },
    ],
  });

export const OrganizationSettings = z
  .object({
    legalNameEn: z.string(),
    legalNameAr: z.string(),
    vatNumber: z.string().nullable(),
    crNumber: z.string().nullable(),
    addressEn: z.string().nullable(),
    addressAr: z.string().nullable(),
    supportEmail: z.string().nullable(),
    supportPhone: z.string().nullable(),
    showVatOnReceipts: z.boolean(),
    vatRatePercent: z.number().min(0).max(100),
  })
  .openapi('OrganizationSettings', { description: 'The seller identity on documents, as stored; unset fields are null' });

export const OrganizationSettingsResponse = z.object({ data: OrganizationSettings }).openapi('OrganizationSettingsResponse');
export const OrganizationSettingsOrNull = z
  .object({ data: OrganizationSettings.nullable().openapi({ description: 'null until the settings are first saved' }) })
  .openapi('OrganizationSettingsOrNull');

export const FxRates = z
  .object({
    base: z.literal('USD'),
    rates: z.array(
      z.object({
        currency: z.enum(FX_CURRENCIES),
        ratePerUsd: z.number().positive(),
        fetchedAt: z.iso.datetime(),
        source: z.string(),
      }),
    ),
  })
  .openapi('FxRates');
