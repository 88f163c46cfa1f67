import { COMPANY_ROLES, COMPANY_STATUSES, PAYMENT_MODES } from '../entities';
import { charCount, chars, E164Phone, Email, PHONE_OR_EMAIL, SaudiPhone, text, TRIMMED, Uuid } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';
import { COMPANY_ACTIONS } from '../../workflows/contracts/company-contract';

// --- The company, as every route answers it ------------------------------------------------------

export const Company = z
  .object({
    id: z.uuid(),
    crNumber: z.string().openapi({ description: 'Commercial registration number; unique' }),
    name: z.string(),
    contactName: z.string(),
    contactEmail: z.string(),
    contactPhone: z.string().openapi({ description: 'E.164' }),
    status: z.enum(COMPANY_STATUSES),
    paymentMode: z.enum(PAYMENT_MODES).nullable().openapi({ description: 'Null until the company picks one' }),
    approvedBy: z.uuid().nullable().openapi({ description: 'The administrator who approved it; stamped on approve only' }),
    approvedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('Company');

// --- Portal: GET /b2b/company, POST /b2b/company, PATCH /b2b/company/payment-mode -----------------

export const MyCompanyResponse = z
  .object({
    data: z.object({
      company: Company.nullable(),
      role: z.enum(COMPANY_ROLES).nullable().openapi({ description: 'The caller’s role in the company' }),
    }),
  })
  .openapi('MyCompanyResponse', { description: 'Both null: invited, company not registered yet' });

/** A Saudi CR number: exactly 10 ASCII digits, taken as sent. */
export const KSA_CR_PATTERN = '^[0-9]{10}$';
/**
 * Elsewhere: 3-30 characters once trimmed (stored trimmed), no NUL. As a pattern: a first and a last
 * character trim() keeps, with 1-28 characters between them, and any trimmable padding outside.
 */
export const FOREIGN_CR_PATTERN = `^[${TRIMMED}]*[^${TRIMMED}\\u0000][^\\u0000]{1,28}[^${TRIMMED}\\u0000][${TRIMMED}]*$`;
const KSA_CR = new RegExp(KSA_CR_PATTERN);

/** The CR rule depends on inKsa: one branch per value in the document, so generators build accepted numbers. */
const CR_RULE = {
  oneOf: [
    {
      title: 'Registered in Saudi Arabia',
      description: '`inKsa` true: `crNumber` is exactly 10 digits',
      properties: { inKsa: { const: true }, crNumber: { pattern: KSA_CR_PATTERN } },
    },
    {
      title: 'Registered elsewhere',
      description: '`inKsa` false: `crNumber` is 3-30 characters once trimmed (stored trimmed)',
      properties: { inKsa: { const: false }, crNumber: { pattern: FOREIGN_CR_PATTERN } },
    },
  ],
};

/** The CR number as stored, or null when it breaks the rule for `inKsa`. */
export function normalizedCrNumber(crNumber: string, inKsa: boolean): string | null {
  if (inKsa) return KSA_CR.test(crNumber) ? crNumber : null;
  const trimmed = crNumber.trim();
  const length = charCount(trimmed);
  return length >= 3 && length <= 30 && !trimmed.includes('\u0000') ? trimmed : null;
}

const CR_MESSAGES = {
  true: 'CR number must be exactly 10 digits when inKsa is true',
  false: 'CR number must be 3-30 characters (trimmed) when inKsa is false',
};

export const RegisterCompanyBody = z
  .strictObject({
    inKsa: z.boolean().openapi({ description: 'Registered in Saudi Arabia; decides the CR number rule. Validated, never stored' }),
    crNumber: z.string().openapi({ description: '10 digits when inKsa is true; 3-30 trimmed characters otherwise' }),
    name: text(1, 255, 'Name'),
    contactName: text(1, 255, 'Contact name'),
    contactEmail: Email,
    contactPhone: E164Phone,
  })
  .transform((body, ctx) => {
    const crNumber = normalizedCrNumber(body.crNumber, body.inKsa);
    if (crNumber === null) {
      ctx.addIssue({ code: 'custom', path: ['crNumber'], message: CR_MESSAGES[`${body.inKsa}`] });
      return z.NEVER;
    }
    return { crNumber, name: body.name, contactName: body.contactName, contactEmail: body.contactEmail, contactPhone: body.contactPhone };
  })
  .openapi('RegisterCompanyRequest', CR_RULE);
export type RegisterCompanyInput = z.output<typeof RegisterCompanyBody>;

export const RegisteredCompanyResponse = z
  .object({ data: z.object({ company: Company, role: z.literal('admin') }) })
  .openapi('RegisteredCompanyResponse');

export const PaymentModeBody = z.strictObject({ paymentMode: z.enum(PAYMENT_MODES) }).openapi('PaymentModeRequest');
export const CompanyWrapped = z.object({ data: z.object({ company: Company }) }).openapi('CompanyWrappedResponse');

// --- Readiness (GET /b2b/readiness, GET /admin/contracts/company/:companyId/readiness) ---------------

export const Readiness = z
  .object({
    contractConfirmed: z.boolean().openapi({ description: 'An active contract exists' }),
    paymentSatisfied: z
      .boolean()
      .openapi({ description: 'Payments recorded on the active contract sum to at least its total (both modes); false with no contract' }),
    rosterStaged: z.boolean().openapi({ description: 'At least one roster row exists' }),
    canSendLinks: z.boolean().openapi({ description: 'All three are true' }),
  })
  .openapi('CompanyReadiness');
export const ReadinessResponse = z.object({ data: Readiness }).openapi('CompanyReadinessResponse');

// --- Admin ---------------------------------------------------------------------------------------

export const AdminCompanyListQuery = z.strictObject({
  ...offsetParams,
  status: z.enum(COMPANY_STATUSES).optional().openapi({ description: 'Only companies in this status' }),
  search: chars(0, 255).optional().openapi({
    description: 'Case-insensitive substring of the name or the CR number (trimmed; empty: no filter). `%` and `_` match themselves',
  }),
});

export const AdminCompanyList = offsetPage('AdminCompanyList', 'companies', Company);

/** The spec lists VALIDATION_ERROR for these routes: a malformed id is one (an unknown one is COMPANY_NOT_FOUND). */
export const CompanyIdParams = z.object({ id: Uuid });
export const CompanyResponse = z.object({ data: Company }).openapi('CompanyResponse');

export const CompanyStatusBody = z
  .strictObject({
    action: z.enum(COMPANY_ACTIONS),
    reason: chars(0, 500).optional().openapi({ description: 'Why; recorded in the audit row only (trimmed; empty: none)' }),
  })
  .openapi('CompanyStatusRequest');

// --- POST /admin/companies/invites ---------------------------------------------------------------

export const CompanyInviteBody = z
  .strictObject({
    phone: SaudiPhone.optional(),
    email: Email.optional(),
    name: text(1, 255, 'Name'),
    role: z.enum(COMPANY_ROLES).openapi({ description: 'Role in the company: admin (read and write) or member (read-only)' }),
    companyId: Uuid.optional().openapi({ description: 'The company to join; required for a member. A first admin has none.' }),
  })
  .refine((b) => b.phone !== undefined || b.email !== undefined, { path: ['phone'], message: 'Give a phone number or an e-mail address' })
  .refine((b) => b.role !== 'member' || b.companyId !== undefined, { path: ['companyId'], message: 'companyId is required for a member' })
  .openapi('CompanyInviteRequest', {
    allOf: [
      PHONE_OR_EMAIL,
      { anyOf: [{ properties: { role: { const: 'admin' } } }, { properties: { role: { const: 'member' } }, required: ['companyId'] }] },
    ],
  });

export const CompanyInvite = z
  .object({
    data: z.object({
      user: z.object({
        id: z.uuid(),
        phone: z.string().nullable(),
        email: z.string().nullable(),
        name: z.string(),
        role: z.literal('b2b_admin').openapi({ description: 'The app role' }),
        isActive: z.boolean(),
        createdAt: z.iso.datetime(),
      }),
      companyId: z.uuid().nullable().openapi({ description: 'Null for a first admin: registering the company creates it' }),
      companyRole: z.enum(COMPANY_ROLES),
    }),
  })
  .openapi('CompanyInvite');
