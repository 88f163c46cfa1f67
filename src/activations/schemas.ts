import { IDENTITY_TYPES } from '../entities';
import { IDENTITY_STATUSES, SIM_TYPES } from '../entities/activation';
import { z } from '../openapi/registry';

export const SimTypeField = z.enum(SIM_TYPES).default('physical').openapi({ description: 'Defaults to `physical`' });

export const ValidateIccidQuery = z.object({ operator: z.string().min(1).max(64).default('mock') }).openapi('ValidateIccidQuery');
export const ValidateIccidBody = z.object({ iccid: z.string().min(1).max(255), simType: SimTypeField }).openapi('ValidateIccidRequest');
export const ValidateIccidResponse = z
  .union([
    z.object({ valid: z.literal(true), operatorId: z.uuid(), operatorSlug: z.string(), simType: z.enum(SIM_TYPES) }),
    z.object({ valid: z.literal(false), simType: z.enum(SIM_TYPES), error: z.string() }),
  ])
  .openapi('ValidateIccidResponse');

export const CreateActivationBody = z
  .object({ iccid: z.string().min(1).max(255), packageId: z.uuid(), simType: SimTypeField })
  .openapi('CreateActivationRequest');
export const CreateActivationResponse = z
  .object({
    activationId: z.uuid(),
    orderId: z.uuid(),
    status: z.literal('pending'),
    identityStatus: z.literal('waiting'),
    simType: z.enum(SIM_TYPES),
  })
  .openapi('CreateActivationResponse');

export const ActivationIdParams = z.object({ id: z.string() });

export const VerifyIdentityBody = z
  .object({ identityType: z.enum(IDENTITY_TYPES), idNumber: z.string().min(5).max(20) })
  .openapi('VerifyIdentityRequest');
export const VerifyIdentityResponse = z
  .object({
    transId: z.string(),
    randomCode: z.string().openapi({ description: 'Confirm this code in the national identity app' }),
    status: z.string(),
  })
  .openapi('VerifyIdentityResponse');
export const IdentityStatusResponse = z
  .object({ status: z.enum(IDENTITY_STATUSES), verifiedAt: z.iso.datetime().nullable() })
  .openapi('IdentityStatusResponse');

/** The serial's format rule for its SIM type (VALIDATION_ERROR on `iccid` when broken). */
export const PHYSICAL_ICCID = /^\d{19}$/;
