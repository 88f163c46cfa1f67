import { QUOTE_PREFERENCES, QUOTE_STATUSES } from '../entities';
import { chars, MAX_SAR, PathId, SarAmount, Uuid } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';

// --- Limits (spec "Limits") ----------------------------------------------------------------------

export const MAX_ITEMS = 200;
export const MAX_QTY = 10_000;
export const MAX_NOTE = 500;
/** userCount is stored in a PostgreSQL integer. */
const MAX_USER_COUNT = 2_147_483_647;

// --- Catalog entry (B2B) -------------------------------------------------------------------------

const Sar = (description: string) => z.number().openapi({ description: `SAR (JSON number, at most 2 decimals). ${description}` });

export const CatalogEntry = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ description: 'In the language Accept-Language selects (`en` default, `ar`)' }),
    description: z.string().nullable().openapi({ description: 'As `name`; the other language’s text when this one has none' }),
    dataAmountMb: z.number().int(),
    voiceMinutes: z.number().int(),
    smsCount: z.number().int(),
    validityDays: z.number().int(),
    priceSarB2b: Sar('The package’s business price'),
    operatorName: z.string().openapi({ description: 'As `name`' }),
  })
  .openapi('B2bCatalogEntry');

export const CatalogResponse = z.object({ data: z.array(CatalogEntry) }).openapi('B2bCatalogResponse');

// --- Quote version, as answered ------------------------------------------------------------------

const Instant = z.iso.datetime();

export const QuoteNeeds = z
  .object({
    userCount: z.number().int().min(1).optional(),
    preference: z.enum(QUOTE_PREFERENCES).optional(),
    budgetSar: Sar('Budget').optional(),
    fundingSar: Sar('Declared funding (flexible mode)').optional(),
  })
  .openapi('QuoteNeeds', {
    description:
      '`{ userCount, preference, budgetSar }` (optionally with `fundingSar`), `{ fundingSar }` alone, or `{}` when the company ' +
      'declared none. Absent keys are left out, never null.',
  });

export const QuoteVersion = z
  .object({
    id: z.uuid(),
    companyId: z.uuid(),
    version: z.number().int().min(1),
    parentId: z.uuid().nullable().openapi({ description: 'Null: company-authored; set: an administrator’s counter of that version' }),
    needs: QuoteNeeds,
    status: z.enum(QUOTE_STATUSES),
    note: z.string().nullable().openapi({ description: 'The reviewer’s note (counter, administrator reject)' }),
    companyNote: z.string().nullable().openapi({ description: 'The company’s decline reason' }),
    reviewedBy: z.uuid().nullable(),
    reviewedAt: Instant.nullable(),
    createdBy: z.uuid().nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .openapi('QuoteVersion');

export const QuoteItem = z
  .object({ id: z.uuid(), packageId: z.uuid(), qty: z.number().int().min(1).max(MAX_QTY) })
  .openapi('QuoteItem', { description: 'A line: a package and a quantity. Prices are never quoted' });

export const QuoteVersionRef = z
  .object({ id: z.uuid(), version: z.number().int().min(1), status: z.enum(QUOTE_STATUSES), createdAt: Instant })
  .openapi('QuoteVersionRef');

export const QuoteDetail = QuoteVersion.extend({
  items: z.array(QuoteItem).openapi({ description: 'This version’s lines, in the order they were sent' }),
  versions: z.array(QuoteVersionRef).openapi({ description: 'Every version of the chain, this one included, oldest first' }),
}).openapi('QuoteDetail');

export const QuoteDetailResponse = z.object({ data: QuoteDetail }).openapi('QuoteDetailResponse');

const chainFields = {
  ref: z.string().openapi({ description: '`Q-` plus the first 12 hex characters of the chain’s first version id; display only' }),
  live: QuoteVersion,
  history: z.array(QuoteVersion).openapi({ description: 'The older versions of the chain, oldest first (empty for a single version)' }),
};
const CHAIN_DOC = {
  description: '`live` is the chain’s tip (the version without a child, the only actionable one); `history` the versions before it',
};

export const QuoteChain = z.object(chainFields).openapi('QuoteChain', CHAIN_DOC);
export const AdminQuoteChain = z.object({ ...chainFields, companyName: z.string() }).openapi('AdminQuoteChain', CHAIN_DOC);

export const QuoteChainList = offsetPage('QuoteChainList', 'chains', QuoteChain);
export const AdminQuoteChainList = offsetPage('AdminQuoteChainList', 'chains', AdminQuoteChain);

// --- Queries and paths ---------------------------------------------------------------------------

export const QuoteListQuery = z.strictObject({
  ...offsetParams,
  status: z
    .enum(QUOTE_STATUSES)
    .optional()
    .openapi({ description: 'Only chains whose live version has this status (`countered` never does)' }),
});

/** Every status but `draft`: drafts are private to the company. */
const ADMIN_STATUSES = ['submitted', 'under_review', 'countered', 'accepted', 'rejected', 'expired'] as const;
export const AdminQuoteListQuery = z.strictObject({
  ...offsetParams,
  status: z
    .enum(ADMIN_STATUSES)
    .optional()
    .openapi({ description: 'Only chains whose live version has this status; drafts are never listed here' }),
  companyId: Uuid.optional().openapi({ description: 'Only this company’s chains' }),
});

/** Where the spec lists VALIDATION_ERROR for a quote id route, a malformed id is one; an unknown one is QUOTE_NOT_FOUND. */
export const QuoteIdParams = z.object({ id: Uuid });
/** Where it does not, a malformed id answers QUOTE_NOT_FOUND like an unknown one. */
export const QuotePathParams = z.object({ id: PathId });

// --- Bodies --------------------------------------------------------------------------------------

const TRIO = ['userCount', 'preference', 'budgetSar'] as const;

export const NeedsBody = z
  .strictObject({
    userCount: z.number().int().min(1).max(MAX_USER_COUNT).optional(),
    preference: z.enum(QUOTE_PREFERENCES).optional(),
    budgetSar: SarAmount(MAX_SAR).optional(),
    fundingSar: SarAmount(MAX_SAR).optional(),
  })
  .superRefine((needs, ctx) => {
    const given = TRIO.filter((k) => needs[k] !== undefined);
    if (given.length > 0 && given.length < TRIO.length) {
      for (const k of TRIO.filter((key) => needs[key] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [k], message: 'userCount, preference and budgetSar go together: all three or none' });
      }
    }
  })
  .openapi('QuoteNeedsRequest', {
    description:
      '`userCount`, `preference` and `budgetSar` all three or none; `fundingSar` alone or with them. `{}` declares none. ' +
      'Amounts are SAR JSON numbers with at most 2 decimals.',
    // All three or none, stated for the document (refinements are invisible to it).
    anyOf: [{ required: [...TRIO] }, { not: { anyOf: TRIO.map((k) => ({ required: [k] })) } }],
  });
export type NeedsInput = z.output<typeof NeedsBody>;

const Line = z.strictObject({
  packageId: Uuid.openapi({ description: 'A package of the B2B catalog (active, with a B2B price)' }),
  qty: z.number().int().min(1).max(MAX_QTY),
});

/** Lines, each package at most once (a contract line per package). */
const lines = (min: number) =>
  z
    .array(Line)
    .min(min, `items must hold ${min}-${MAX_ITEMS} lines`)
    .max(MAX_ITEMS, `items must hold ${min}-${MAX_ITEMS} lines`)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        const key = item.packageId.toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i, 'packageId'], message: 'Each package may appear once' });
        seen.add(key);
      });
    })
    .openapi({ description: `${min}-${MAX_ITEMS} lines \`{ packageId, qty }\` (qty 1-${MAX_QTY}), each package at most once` });

export const QuoteBody = z
  .strictObject({
    needs: NeedsBody.optional(),
    items: lines(0),
  })
  .openapi('QuoteRequest', { description: 'No prices are sent: they are snapshotted from the catalog when a contract is confirmed' });
export type QuoteInput = z.output<typeof QuoteBody>;

const Note = chars(0, MAX_NOTE).openapi({ description: `Up to ${MAX_NOTE} characters, trimmed; blank counts as absent` });

export const NoteBody = z.strictObject({ note: Note.optional() }).openapi('QuoteNoteRequest');

export const CounterBody = z.strictObject({ items: lines(1), note: Note.optional() }).openapi('QuoteCounterRequest');
