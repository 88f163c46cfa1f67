import { z } from '../openapi/registry';

// --- GET /operators --------------------------------------------------------------------------

const Timestamp = z.iso.datetime();

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
