import { IDENTITY_TYPES } from '../entities';
import { IDENTITY_STATUSES, SIM_TYPES, type SimType } from '../entities/activation';
import { chars, idempotencyKeyHeader, PathId, Uuid } from '../http/fields';
import { z } from '../openapi/registry';
import { ACTIVATION_CODE_MAX_LENGTH, ACTIVATION_CODE_PATTERN } from '../operators/esim-code';

/** The serial's format rule for its SIM type (VALIDATION_ERROR on `iccid` when broken). */
export const PHYSICAL_ICCID_PATTERN = '^[0-9]{19}$';
const PHYSICAL_ICCID = new RegExp(PHYSICAL_ICCID_PATTERN);
const ACTIVATION_CODE = new RegExp(ACTIVATION_CODE_PATTERN);

const FORMAT_MESSAGES: Record<SimType, string> = {
  physical: 'ICCID must be exactly 19 digits',
  esim: 'Not a GSMA SGP.22 activation code (LPA:1$<SM-DP+ address>$<matching id>…, at most 255 characters)',
};

export function serialFormatValid(serial: string, simType: SimType): boolean {
  return simType === 'physical' ? PHYSICAL_ICCID.test(serial) : serial.length <= ACTIVATION_CODE_MAX_LENGTH && ACTIVATION_CODE.test(serial);
}

/**
 * `iccid` and `simType` of validate-iccid and create: the format rule depends on
 * the SIM type, so the document states it as one branch per type and a generator
 * produces only serials of the right form.
 */
const SERIAL_RULE = {
  oneOf: [
    {
      title: 'Physical SIM',
      description: '`simType` `physical` or absent: a 19-digit ICCID',
      properties: { simType: { const: 'physical' }, iccid: { pattern: PHYSICAL_ICCID_PATTERN } },
    },
    {
      title: 'eSIM',
      description: 'GSMA SGP.22 activation code (optional `LPA:` prefix, 3-6 `$`-separated segments), at most 255 characters',
      required: ['simType'],
      properties: { simType: { const: 'esim' }, iccid: { maxLength: ACTIVATION_CODE_MAX_LENGTH, pattern: ACTIVATION_CODE_PATTERN } },
    },
  ],
};

const Serial = {
  iccid: z.string().openapi({ description: '19-digit ICCID (physical) or LPA activation code (eSIM)' }),
  simType: z.enum(SIM_TYPES).default('physical').openapi({ description: 'Defaults to `physical`' }),
};

function serialRule(b: { iccid: string; simType: SimType }, ctx: z.RefinementCtx): void {
  if (!serialFormatValid(b.iccid, b.simType)) ctx.addIssue({ code: 'custom', path: ['iccid'], message: FORMAT_MESSAGES[b.simType] });
}

export const ValidateIccidQuery = z
  .object({ operator: chars(1, 64).default('mock').openapi({ description: 'Slug of a registered operator' }) })
  .openapi('ValidateIccidQuery');
export const ValidateIccidBody = z.object(Serial).superRefine(serialRule).openapi('ValidateIccidRequest', SERIAL_RULE);
export const ValidateIccidResponse = z
  .union([
    z.object({ valid: z.literal(true), operatorId: z.uuid(), operatorSlug: z.string(), simType: z.enum(SIM_TYPES) }),
    z.object({ valid: z.literal(false), simType: z.enum(SIM_TYPES), error: z.string() }),
  ])
  .openapi('ValidateIccidResponse');

export const CreateActivationBody = z
  .object({ ...Serial, packageId: Uuid })
  .superRefine(serialRule)
  .openapi('CreateActivationRequest', SERIAL_RULE);
/**
 * Optional, ours (the spec names no header): a client that lost the answer repeats the request with the
 * same key and gets the first answer. Without it a repeat is a new request (its serial is then in use).
 */
export const CreateActivationHeaders = idempotencyKeyHeader('answer the first create again');
export const CreateActivationResponse = z
  .object({
    activationId: z.uuid(),
    orderId: z.uuid(),
    status: z.literal('pending'),
    identityStatus: z.literal('waiting'),
    simType: z.enum(SIM_TYPES),
  })
  .openapi('CreateActivationResponse');

/** A non-uuid id answers ACTIVATION_NOT_FOUND like an unknown one, so nothing leaks. */
export const ActivationIdParams = z.object({ id: PathId });

export const VerifyIdentityBody = z
  .object({ identityType: z.enum(IDENTITY_TYPES), idNumber: chars(5, 20) })
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
