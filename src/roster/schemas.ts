import { IDENTITY_TYPES, LINK_STATUSES, ROSTER_STATUSES } from '../entities';
import { chars, Uuid } from '../http/fields';
import { itemResultSchema, ROSTER_ROW_CODES } from '../http/item-results';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';
import { MAX_EMAIL, MAX_NAME, MAX_NATIONALITY } from './rows';

export const MAX_STAGE_ROWS = 500;
export const LINK_STATUS_FILTERS = ['none', ...LINK_STATUSES] as const;

export const RosterListQuery = z.strictObject({
  ...offsetParams,
  status: z.enum(ROSTER_STATUSES).optional().openapi({ description: 'Only entries with this roster status' }),
  linkStatus: z.enum(LINK_STATUS_FILTERS).optional().openapi({
    description:
      'Only entries whose latest link has this status (lazy expiry applied: an issued, sent or exported link past its expiry is `expired`); `none`: no link was ever issued; `used` spans activated and opened-but-unfinished',
  }),
  search: chars(0, MAX_EMAIL)
    .optional()
    .openapi({
      description:
        'Exact phone (E.164) or e-mail, trimmed (an e-mail compared lower-cased, as stored). Compared through the keyed hash ' +
        '(HMAC-SHA-256) the contacts are stored under, never in clear. Blank: no search.',
    }),
});

const RowDoc = {
  description:
    `A parsed CSV row: \`{ name (1-${MAX_NAME}, required), phone (E.164, any country), email (at least one of phone or email), ` +
    `identityType (citizen|resident|visitor, required), nationality (up to ${MAX_NATIONALITY}, optional) }\`. ` +
    'Blank or null optional cells count as absent; other fields are ignored (there is no id-number field). Each row is checked ' +
    'on its own: a bad row, or one that is not an object, is a rejection in the answer, never a 400.',
  example: { name: 'Sara Ali', phone: '+966501234567', email: 'sara@example.com', identityType: 'resident', nationality: 'Egypt' },
};

export const StageRosterBody = z
  .strictObject({
    rows: z
      .array(z.unknown().openapi(RowDoc))
      .min(1, `rows must hold 1-${MAX_STAGE_ROWS} rows`)
      .max(MAX_STAGE_ROWS, `rows must hold 1-${MAX_STAGE_ROWS} rows`)
      .openapi({ description: `1-${MAX_STAGE_ROWS} rows; row numbers in the answer are 1-based positions in this array` }),
  })
  .openapi('StageRosterRequest');

export const RosterRowRejection = itemResultSchema(
  {
    rowNumber: z.number().int().min(1).openapi({ description: '1-based position of the row in `rows`' }),
    field: z.enum(['row', 'name', 'phone', 'email', 'contact', 'identityType', 'nationality']).openapi({
      description: 'The offending field; `contact` when neither phone nor email is given, `row` when the row is not an object',
    }),
  },
  ROSTER_ROW_CODES,
  'RosterRowRejection',
);

export const StageRosterResponse = z
  .object({
    data: z.object({
      staged: z.number().int().min(0).openapi({ description: 'Rows staged: a new account and a `staged` roster entry each' }),
      rejected: z.array(RosterRowRejection).openapi({ description: 'Every rejection, sorted by rowNumber (a row may earn several)' }),
    }),
  })
  .openapi('StageRosterResponse');

const Instant = z.iso.datetime();

export const RosterEntry = z
  .object({
    id: z.uuid(),
    companyId: z.uuid(),
    userId: z.uuid(),
    nationality: z.string().nullable(),
    status: z.enum(ROSTER_STATUSES),
    packageId: z.uuid().nullable().openapi({ description: 'Assigned at link mint; null before' }),
    createdBy: z.uuid().nullable(),
    createdAt: Instant,
    updatedAt: Instant,
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    identityType: z.enum(IDENTITY_TYPES),
    linkStatus: z.enum(LINK_STATUSES).nullable().openapi({
      description: "The latest link's status, lazy expiry applied; null when no link was ever issued",
    }),
    linkExpiresAt: Instant.nullable(),
    linkCreatedAt: Instant.nullable(),
    activated: z.boolean().openapi({ description: "Whether the person's latest activation is `activated` (not from any link)" }),
  })
  .openapi('RosterEntry');

export const RosterList = offsetPage('RosterList', 'entries', RosterEntry);

/** The spec lists VALIDATION_ERROR ("bad id") for PATCH and DELETE: a malformed id is one; an unknown one is ROSTER_ENTRY_NOT_FOUND. */
export const RosterIdParams = z.strictObject({ rosterId: Uuid });

export const AssignBody = z
  .strictObject({
    packageId: Uuid.nullable().optional().openapi({ description: 'Flexible only; null clears' }),
    contractItemId: Uuid.nullable().optional().openapi({ description: 'Prepaid only (also a company with no mode); null clears' }),
  })
  .refine((b) => (b.packageId !== undefined) !== (b.contractItemId !== undefined), {
    message: 'Exactly one of packageId or contractItemId',
  })
  // Closed and exactly one property: the document says "exactly one of" as the refine does.
  .openapi('AssignRosterEntryRequest', { minProperties: 1, maxProperties: 1 });

export const AssignResponse = z.object({ data: RosterEntry }).openapi('AssignRosterEntryResponse');
export const RemoveResponse = z.object({ data: z.object({ removed: z.literal(true) }) }).openapi('RemoveRosterEntryResponse');
