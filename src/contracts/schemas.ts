import { CONTRACT_PAYMENT_METHODS, CONTRACT_STATUSES, PAYMENT_MODES } from '../entities';
import { chars, PathId, SarAmount, text, Uuid } from '../http/fields';
import { z } from '../openapi/registry';

// --- The contract, as every route answers it (portal, admin, confirm-contract) ----------------------

const Sar = (description: string) => z.number().openapi({ description: `SAR (JSON number, 2 decimals at most). ${description}` });

export const ContractItem = z
  .object({
    id: z.uuid(),
    packageId: z.uuid(),
    qty: z.number().int().openapi({ description: 'Seats bought on this line' }),
    unitPriceSar: Sar('The package’s B2B price snapshotted at confirmation'),
    consumedQty: z.number().int().openapi({ description: 'Seats held by a link that is `used`, or still active and not past its expiry' }),
    remainingQty: z.number().int().openapi({ description: 'max(0, qty − consumedQty)' }),
  })
  .openapi('ContractItem');

export const Contract = z
  .object({
    id: z.uuid(),
    ref: z.string().openapi({ description: '`CTR-` plus 12 hex characters; display only' }),
    companyId: z.uuid(),
    quoteRequestId: z.uuid().openapi({ description: 'The quote version the contract was confirmed from' }),
    paymentMode: z.enum(PAYMENT_MODES).openapi({ description: 'Inherited from the company at confirmation' }),
    status: z.enum(CONTRACT_STATUSES),
    totalSar: Sar('Prepaid: Σ qty × unitPriceSar; flexible: the declared funding'),
    confirmedBy: z.uuid().nullable().openapi({ description: 'The administrator who confirmed it (null once that user is gone)' }),
    confirmedAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    items: z.array(ContractItem).openapi({ description: 'Prepaid lines; always empty for a flexible contract' }),
    totalQty: z.number().int().openapi({ description: 'Σ qty over the items; 0 for a flexible contract' }),
    rosterCount: z.number().int().openapi({ description: 'The company’s roster rows' }),
    driftExcess: z.number().int().openapi({ description: 'max(0, rosterCount − totalQty); 0 for a flexible contract' }),
  })
  .openapi('Contract');
export type ContractBody = z.input<typeof Contract>;

export const ContractResponse = z.object({ data: Contract }).openapi('ContractResponse');
export const MaybeContractResponse = z
  .object({ data: Contract.nullable().openapi({ description: 'The active contract, or null when there is none' }) })
  .openapi('MaybeContractResponse');

// --- Admin: routes by company ----------------------------------------------------------------------

/** Any string: an id that is not a UUID names no company, answered like an unknown one (null, all false, zeros). */
export const CompanyIdParams = z.object({ companyId: PathId });

export const ActiveLine = z
  .object({
    packageId: z.uuid(),
    nameEn: z.string(),
    nameAr: z.string(),
    count: z.number().int().openapi({ description: 'Live activated lines of this package' }),
    drawnSar: Sar('What those lines drew'),
  })
  .openapi('ActiveLine');

export const Balance = z
  .object({
    paymentMode: z
      .enum(PAYMENT_MODES)
      .openapi({ description: 'The active contract’s mode; with none, the company’s picked mode (prepaid if unpicked or unknown)' }),
    fundedSar: Sar('Σ payments recorded on the active (flexible) contract'),
    drawnSar: Sar('Σ over the company’s paid orders whose activation is still alive (not failed or cancelled)'),
    committedSar: Sar('Seats consumed (link used, or live) without a live charge yet; advisory'),
    availableSar: Sar('fundedSar − drawnSar'),
    activeLines: z.array(ActiveLine).openapi({ description: 'One entry per package with a live activated line' }),
  })
  .openapi('ContractBalance');
export const BalanceResponse = z.object({ data: Balance }).openapi('ContractBalanceResponse');

// --- Contract payments -----------------------------------------------------------------------------

export const DOCUMENT_MIMES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type DocumentMime = (typeof DOCUMENT_MIMES)[number];
/** 5 MB decoded (5 × 1024 × 1024 bytes). */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
/**
 * The payments route's own JSON limit: 5 MB as base64 is 6,990,508 characters; 7 MB leaves room for
 * the envelope (name up to 255 characters, even \u-escaped, key, method, amount). A bigger body is
 * refused before parsing (VALIDATION_ERROR, "Request body is too large"); every other route keeps 100kb.
 */
export const PAYMENT_BODY_LIMIT = '7mb';

export const ContractPayment = z
  .object({
    id: z.uuid(),
    contractId: z.uuid(),
    method: z.enum(CONTRACT_PAYMENT_METHODS),
    amountSar: Sar(''),
    documentName: z.string(),
    documentMime: z.enum(DOCUMENT_MIMES),
    hasDocument: z.boolean().openapi({ description: 'Proof bytes are stored (download: …/payments/{paymentId}/document)' }),
    confirmedBy: z.uuid().nullable().openapi({ description: 'The administrator who recorded it (null once that user is gone)' }),
    confirmedByName: z.string().nullable().openapi({ description: 'Resolved by the list route only; null on the record answer' }),
    confirmedAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
  })
  .openapi('ContractPayment');
export type ContractPaymentBody = z.input<typeof ContractPayment>;
export const ContractPaymentResponse = z.object({ data: ContractPayment }).openapi('ContractPaymentResponse');
export const ContractPaymentList = z.object({ data: z.array(ContractPayment) }).openapi('ContractPaymentList');

/**
 * Canonical base64 (RFC 4648 §4): the standard alphabet in groups of 4, `=` padding only at the end,
 * no whitespace, and zero bits after the last byte (so one text per file). The server checks it by a
 * round trip (linear, where a regex over 7 MB overflows the stack); the document states it as patterns.
 */
export const isCanonicalBase64 = (s: string): boolean => s.length % 4 === 0 && Buffer.from(s, 'base64').toString('base64') === s;

/** Canonical base64 groups after a fixed start: whole groups, then an optional padded last group. */
const CANONICAL_TAIL = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?';
/** Base64 characters of a file of at most 5 MB. */
const MAX_BASE64_LENGTH = 4 * Math.ceil(MAX_DOCUMENT_BYTES / 3);

/**
 * What the server accepts, per mime, for the document (refinements are invisible to it): canonical
 * base64 that starts with the file's signature (`%PDF-` is `JVBERi0`, PNG's 8 bytes `iVBORw0KGg`,
 * JPEG's FF D8 FF `/9j/`), at most 5 MB decoded. Anything else is answered with the spec's codes.
 */
export const DOCUMENT_KINDS: Record<DocumentMime, string> = {
  'application/pdf': `^JVBE(?:Ri0=|Ri[0-3][A-Za-z0-9+/]${CANONICAL_TAIL})$`,
  'image/png': `^iVBORw0K(?:Ggo=|Gg[o-r][A-Za-z0-9+/]${CANONICAL_TAIL})$`,
  'image/jpeg': `^/9j/${CANONICAL_TAIL}$`,
};

export const PaymentDocument = z
  .strictObject({
    name: text(1, 255, 'Document name'),
    mime: chars(1, 255).openapi({
      description:
        '`application/pdf`, `image/png` or `image/jpeg`, and the bytes must be that kind of file; anything else ' +
        'CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME',
      examples: [...DOCUMENT_MIMES],
    }),
    dataBase64: z
      .string()
      .min(4, 'Document must not be empty')
      .refine(isCanonicalBase64, 'Must be canonical base64 (standard alphabet, padded, no whitespace)')
      .openapi({
        minLength: 4,
        description: 'The proof file, base64. Decoded over 5 MB: CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE',
      }),
  })
  .openapi('ContractPaymentDocument', {
    oneOf: DOCUMENT_MIMES.map((mime) => ({
      properties: { mime: { const: mime }, dataBase64: { pattern: DOCUMENT_KINDS[mime], maxLength: MAX_BASE64_LENGTH } },
    })),
  });

export const RecordPaymentBody = z
  .strictObject({
    method: z.enum(CONTRACT_PAYMENT_METHODS),
    amountSar: SarAmount(),
    document: PaymentDocument,
    idempotencyKey: chars(8, 128).openapi({
      description:
        'The same key with the same method and amount answers the original record; otherwise CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT',
    }),
  })
  .openapi('RecordContractPaymentRequest');
export type RecordPaymentInput = z.output<typeof RecordPaymentBody>;

/** Recording a payment lists VALIDATION_ERROR in the spec: a malformed contract id is one; an unknown one is CONTRACT_NOT_FOUND. */
export const ContractIdParams = z.object({ id: Uuid });
/** The payments list answers an unknown contract id with an empty array, a malformed one too. */
export const ContractListParams = z.object({ id: PathId });
/** The download lists VALIDATION_ERROR: malformed ids are one; unknown ones CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND. */
export const PaymentDocumentParams = z.object({ id: Uuid, paymentId: Uuid });
