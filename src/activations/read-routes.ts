import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router, type Response } from 'express';
import { authenticate, principalOf, requireRole } from '../auth/middleware';
import type { SessionService } from '../auth/sessions';
import { ACTIVATION_STATUSES, IDENTITY_STATUSES, ORDER_STATUSES, SIM_TYPES } from '../entities';
import { defineRoute } from '../http/route';
import { parsed } from '../http/validate';
import { z } from '../openapi/registry';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ActivationReads } from './read-service';

// --- Request schemas -------------------------------------------------------------------------

/** Digits only, then 1-100: 'abc', '0', '101', '1.5', '1e1', ' 5' and repeated keys are all VALIDATION_ERROR. */
const Limit = z
  .string()
  .regex(/^\d+$/, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
      .max(MAX_PAGE_SIZE, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`),
  )
  .optional()
  .openapi({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE });

/** Checked in full by the service (VALIDATION_ERROR on `cursor`). */
const CursorParam = z
  .string()
  .max(200, 'Invalid cursor: use the nextCursor of the previous page')
  .optional()
  .openapi({ description: 'Omit for the first page; otherwise the previous `nextCursor` (`<createdAt>|<activationId>`)' });

const StatusFilter = z.enum(ACTIVATION_STATUSES).optional();
const Instant = z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time' });

export const HistoryQuery = z.object({ cursor: CursorParam, limit: Limit, status: StatusFilter }).openapi('ActivationHistoryQuery');

export const RecordsQuery = z
  .strictObject({
    cursor: CursorParam,
    limit: Limit,
    status: StatusFilter,
    operatorId: z.uuid({ message: 'Must be a UUID' }).optional(),
    packageId: z.uuid({ message: 'Must be a UUID' }).optional(),
    from: Instant.optional().openapi({ description: 'Inclusive lower bound of createdAt' }),
    to: Instant.optional().openapi({ description: 'Inclusive upper bound of createdAt; at or after `from`' }),
    includeDeleted: z
      .enum(['true', 'false'], { message: "includeDeleted must be 'true' or 'false'" })
      .optional()
      .openapi({ default: 'false', description: 'When false, soft-deleted rows are excluded' }),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) < Date.parse(q.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` must be at or after `from`' });
    }
  })
  .openapi('ActivationRecordsQuery');

/** Any string: a non-uuid id answers ACTIVATION_NOT_FOUND like an unknown one, so nothing leaks. */
const IdParams = z.object({ id: z.string().openapi({ format: 'uuid' }) });

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

export const OperatorListItem = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    nameEn: z.string(),
    nameAr: z.string(),
    logoUrl: z.string().nullable(),
    packageCount: z.number().int().openapi({ description: 'Always 0 until a counting query exists' }),
    supportsEsim: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('OperatorListItem');

export const OperatorListResponse = z.object({ data: z.array(OperatorListItem) }).openapi('OperatorListResponse');

// --- Routes ----------------------------------------------------------------------------------

export interface ActivationReadRouteDeps {
  reads: ActivationReads;
  sessions: SessionService;
}

type Parsed<T extends z.ZodType> = z.output<T>;

export function activationReadRoutes(registry: OpenAPIRegistry, deps: ActivationReadRouteDeps): Router {
  const router = Router();
  const { reads } = deps;
  const auth = authenticate(deps.sessions);
  const tag = 'Activations';

  // Literal paths before `/activations/:id/...`; they do not collide, but keep the order obvious.
  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/activations/history',
      tag,
      auth: 'session',
      summary: "The caller's activations, newest first",
      description: 'Keyset pagination ordered by (createdAt desc, id desc). Soft-deleted activations are not listed.',
      query: HistoryQuery,
      response: { status: 200, schema: ActivationHistoryResponse },
      errors: ['VALIDATION_ERROR', 'AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      const q = parsed<Parsed<typeof HistoryQuery>>(res, 'query');
      res.json(await reads.history(principalOf(res).user.id, { cursor: q.cursor, limit: q.limit, status: q.status }));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/activations/records',
      tag,
      auth: 'session',
      summary: 'Activation records for the admin dashboard (super_admin)',
      description: 'Unknown query parameters are rejected. `from` and `to` are inclusive bounds of createdAt.',
      query: RecordsQuery,
      response: { status: 200, schema: ActivationRecordsResponse },
      errors: ['VALIDATION_ERROR', 'AUTH_REQUIRED', 'AUTH_FORBIDDEN', 'ACTIVATION_FAILED'],
    },
    auth,
    requireRole('super_admin'),
    async (_req, res) => {
      const q = parsed<Parsed<typeof RecordsQuery>>(res, 'query');
      res.json(
        await reads.records({
          cursor: q.cursor,
          limit: q.limit,
          status: q.status,
          operatorId: q.operatorId,
          packageId: q.packageId,
          from: q.from,
          to: q.to,
          includeDeleted: q.includeDeleted === 'true',
        }),
      );
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/activations/:id/status',
      tag,
      auth: 'session',
      summary: "Status of one of the caller's activations",
      description: '`esimProfile` stays null until the activation is `activated`.',
      params: IdParams,
      response: { status: 200, schema: ActivationStatusResponse },
      errors: ['ACTIVATION_NOT_FOUND', 'ACTIVATION_FAILED', 'AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      res.json(await reads.status(principalOf(res).user.id, parsed<{ id: string }>(res, 'params').id));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/activations/:id/esim-qr',
      tag,
      auth: 'session',
      summary: 'QR code (PNG) of an issued eSIM profile',
      description: 'Rendered on demand from the stored activation code, never stored. 404 for physical SIMs and eSIMs not yet activated.',
      params: IdParams,
      response: {
        status: 200,
        contentType: 'image/png',
        description: 'PNG image',
        schema: z.string().openapi({ type: 'string', format: 'binary' }),
        headers: z.object({ 'Cache-Control': z.literal('private, no-store') }),
      },
      errors: ['ACTIVATION_NOT_FOUND', 'ACTIVATION_ESIM_DISABLED', 'AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      const png = await reads.esimQr(principalOf(res).user.id, parsed<{ id: string }>(res, 'params').id);
      res.set('Cache-Control', 'private, no-store').type('image/png').send(png);
    },
  );

  return router;
}

export interface OperatorRouteDeps {
  reads: ActivationReads;
}

export function operatorRoutes(registry: OpenAPIRegistry, deps: OperatorRouteDeps): Router {
  const router = Router();
  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/operators',
      tag: 'Operators',
      auth: 'public',
      summary: 'Telecom operators',
      description: 'Telecom operators only (eSIM store providers are not listed), ordered by nameEn.',
      response: { status: 200, schema: OperatorListResponse },
      errors: [],
    },
    async (_req, res) => {
      res.json(await deps.reads.operators());
    },
  );
  return router;
}
