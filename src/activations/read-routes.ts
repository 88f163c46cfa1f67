import { ACTIVATION_STATUSES, IDENTITY_STATUSES, ORDER_STATUSES, SIM_TYPES } from '../entities';
import { Instant, PathId, Uuid } from '../http/fields';
import { guard } from '../http/guards';
import { CursorParam, Limit } from '../http/pagination';
import { binary, json, type Api } from '../http/route';
import { z } from '../openapi/registry';
import type { ActivationReads } from './read-service';

// --- Request schemas -------------------------------------------------------------------------

const StatusFilter = z.enum(ACTIVATION_STATUSES).optional();

export const HistoryQuery = z.object({ cursor: CursorParam, limit: Limit, status: StatusFilter }).openapi('ActivationHistoryQuery');

export const RecordsQuery = z
  .strictObject({
    cursor: CursorParam,
    limit: Limit,
    status: StatusFilter,
    operatorId: Uuid.optional(),
    packageId: Uuid.optional(),
    from: Instant.optional().openapi({ description: 'Inclusive lower bound of createdAt' }),
    to: Instant.optional().openapi({ description: 'Inclusive upper bound of createdAt; at or after `from`' }),
    includeDeleted: z
      .enum(['true', 'false'], { message: "includeDeleted must be 'true' or 'false'" })
      .optional()
      .openapi({ type: 'boolean', default: false, description: 'When false, soft-deleted rows are excluded' }),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) < Date.parse(q.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` must be at or after `from`' });
    }
  })
  .openapi('ActivationRecordsQuery');

/** Any string: a non-uuid id answers ACTIVATION_NOT_FOUND like an unknown one, so nothing leaks. */
const IdParams = z.object({ id: PathId });

// --- Response schemas ------------------------------------------------------------------------

const Timestamp = z.iso.datetime();
const Money = z
  .string()
  .regex(/^-?\d+\.\d{2}$/)
  .openapi({ description: 'Decimal string with 2 decimals', example: '49.00' });

export const EsimProfileView = z
  .object({
    smdpAddress: z.string(),
    matchingId: z.string(),
    activationCodeRaw: z.string().openapi({ description: 'LPA-prefixed activation code' }),
    qrUrl: z.string().openapi({ example: '/activations/0b6f1c4e-1d2a-4c8e-9a51-000000000001/esim-qr' }),
  })
  .nullable()
  .openapi('ActivationEsimProfile', { description: 'Null until the activation is `activated`' });

export const ActivationStatusResponse = z
  .object({
    id: z.uuid(),
    iccid: z.string().openapi({ description: '19-digit ICCID (physical) or the LPA activation code (eSIM)' }),
    simType: z.enum(SIM_TYPES),
    esimProfile: EsimProfileView,
    status: z.enum(ACTIVATION_STATUSES),
    identityStatus: z.enum(IDENTITY_STATUSES),
    estimatedActivationSeconds: z.number().int().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('ActivationStatusResponse');

export const ActivationHistoryItem = z
  .object({
    activationId: z.uuid(),
    iccid: z.string(),
    simType: z.enum(SIM_TYPES),
    esimProfile: EsimProfileView,
    status: z.enum(ACTIVATION_STATUSES),
    packageNameEn: z.string(),
    packageNameAr: z.string(),
    operatorNameEn: z.string(),
    operatorNameAr: z.string(),
    estimatedActivationSeconds: z.number().int().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('ActivationHistoryItem');

const pageOf = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      items: z.array(item),
      nextCursor: z.string().nullable().openapi({ description: '`<createdAt>|<activationId>` of the last item; null on the last page' }),
      hasMore: z.boolean(),
    })
    .openapi(name);

export const ActivationHistoryResponse = pageOf(ActivationHistoryItem, 'ActivationHistoryResponse');

export const ActivationRecord = z
  .object({
    activationId: z.uuid(),
    orderId: z.uuid(),
    orderItemId: z.uuid(),
    userId: z.uuid(),
    operatorId: z.uuid(),
    packageId: z.uuid(),
    iccid: z.string(),
    simType: z.enum(SIM_TYPES),
    esimProfile: EsimProfileView,
    status: z.enum(ACTIVATION_STATUSES),
    identityStatus: z.enum(IDENTITY_STATUSES),
    identityRef: z.string().nullable(),
    assignedOfficerId: z.uuid().nullable(),
    activatedAt: Timestamp.nullable(),
    failedReason: z.string().nullable(),
    retainUntil: Timestamp.nullable(),
    deletionRequestedAt: Timestamp.nullable(),
    deletedAt: Timestamp.nullable(),
    estimatedActivationSeconds: z.number().int().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    order: z.object({
      id: z.uuid(),
      userId: z.uuid(),
      companyId: z.uuid().nullable(),
      status: z.enum(ORDER_STATUSES),
      totalAmountSar: Money,
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    orderItem: z.object({
      id: z.uuid(),
      orderId: z.uuid(),
      packageId: z.uuid(),
      iccid: z.string(),
      quantity: z.number().int(),
      unitPriceSar: Money,
    }),
    user: z.object({ id: z.uuid(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable() }),
    package: z.object({
      id: z.uuid(),
      operatorId: z.uuid(),
      nameEn: z.string(),
      nameAr: z.string(),
      descriptionEn: z.string().nullable(),
      descriptionAr: z.string().nullable(),
      dataAmountMb: z.number().int(),
      voiceMinutes: z.number().int(),
      smsCount: z.number().int(),
      validityDays: z.number().int(),
      priceSar: Money,
      priceSarB2b: Money.nullable(),
      isActive: z.boolean(),
      isPromotional: z.boolean(),
      isNameCustomized: z.boolean(),
      isPriceCustomized: z.boolean(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    operator: z.object({
      id: z.uuid(),
      slug: z.string(),
      nameEn: z.string(),
      nameAr: z.string(),
      isActive: z.boolean(),
      logoUrl: z.string().nullable(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
  })
  .openapi('ActivationRecord', { description: 'Operator secrets and user hashes / id numbers are never included' });

export const ActivationRecordsResponse = pageOf(ActivationRecord, 'ActivationRecordsResponse');

// --- Routes ----------------------------------------------------------------------------------

export interface ActivationReadRouteDeps {
  reads: ActivationReads;
}

export function activationReadRoutes(api: Api, deps: ActivationReadRouteDeps): void {
  const { reads } = deps;
  const tag = 'Activations';

  // Literal paths before `/activations/:id/...`; they do not collide, but keep the order obvious.
  api.define(
    {
      method: 'get',
      path: '/activations/history',
      tag,
      guard: guard.session,
      summary: "The caller's activations, newest first",
      description: 'Keyset pagination ordered by (createdAt desc, id desc). Soft-deleted activations are not listed.',
      query: HistoryQuery,
      response: json(ActivationHistoryResponse),
      errors: [],
    },
    ({ query, principal }) => reads.history(principal.user.id, query),
  );

  api.define(
    {
      method: 'get',
      path: '/activations/records',
      tag,
      guard: guard.superAdmin,
      summary: 'Activation records for the admin dashboard',
      description: 'Unknown query parameters are rejected. `from` and `to` are inclusive bounds of createdAt.',
      query: RecordsQuery,
      response: json(ActivationRecordsResponse),
      errors: ['ACTIVATION_FAILED'],
    },
    ({ query }) => reads.records({ ...query, includeDeleted: query.includeDeleted === 'true' }),
  );

  api.define(
    {
      method: 'get',
      path: '/activations/:id/status',
      tag,
      guard: guard.session,
      summary: "Status of one of the caller's activations",
      description: 'Owner only. `esimProfile` stays null until the activation is `activated`.',
      params: IdParams,
      response: json(ActivationStatusResponse),
      errors: ['ACTIVATION_NOT_FOUND', 'ACTIVATION_FAILED'],
    },
    ({ params, principal }) => reads.status(principal.user.id, params.id),
  );

  api.define(
    {
      method: 'get',
      path: '/activations/:id/esim-qr',
      tag,
      guard: guard.session,
      summary: 'QR code (PNG) of an issued eSIM profile',
      description:
        'Owner only. Rendered on demand from the stored activation code, never stored. 404 for physical SIMs and eSIMs not yet activated.',
      params: IdParams,
      response: binary('image/png', 'PNG image', [
        { name: 'Cache-Control', schema: z.literal('private, no-store'), required: true, description: 'Never cached' },
      ]),
      errors: ['ACTIVATION_NOT_FOUND', 'ACTIVATION_ESIM_DISABLED'],
    },
    async ({ params, principal, res }) => {
      const png = await reads.esimQr(principal.user.id, params.id);
      res.set('Cache-Control', 'private, no-store');
      return png;
    },
  );
}
