import { APP_ROLES, IDENTITY_TYPES, REQUIRED_CONSENT_TYPES, CONSENT_TYPES } from '../entities';
import { z } from '../openapi/registry';

import { chars, E164Phone, Email, SaudiPhone, text, PHONE_OR_EMAIL } from '../http/fields';

export { E164Phone, Email, SaudiPhone };
export const Name = text(1, 255, 'Name');
export const Otp = z
  .string()
  .regex(/^\d{6}$/, 'OTP must be 6 digits')
  .openapi({ example: '123456' });

export const Consent = z.object({ type: z.enum(CONSENT_TYPES), version: chars(1, 64) }).openapi('Consent');

/**
 * Exactly one consent of each required type. Checked by `consentsValid` (AUTH_CONSENT_REQUIRED, 401),
 * not by the schema, so the field accepts anything and the document states the rule in JSON Schema.
 */
const ConsentList = z
  .unknown()
  .optional()
  .openapi({
    type: 'array',
    items: { $ref: '#/components/schemas/Consent' },
    minItems: 3,
    maxItems: 3,
    allOf: REQUIRED_CONSENT_TYPES.map((type) => ({
      contains: { type: 'object', properties: { type: { const: type } }, required: ['type'] },
    })),
    description: 'Exactly one consent of each of the three required types; anything else answers AUTH_CONSENT_REQUIRED (401)',
  });

export function consentsValid(value: unknown): value is z.infer<typeof Consent>[] {
  const list = z.array(Consent).length(3).safeParse(value);
  if (!list.success) return false;
  const types = new Set(list.data.map((c) => c.type));
  return types.size === 3 && REQUIRED_CONSENT_TYPES.every((t) => types.has(t));
}

/** Register and login need a phone or an e-mail (AUTH_NO_CREDENTIAL otherwise). */
export const RegisterBody = z
  .object({ phone: SaudiPhone.optional(), email: Email.optional(), name: Name, consents: ConsentList })
  .openapi('RegisterRequest', { ...PHONE_OR_EMAIL, required: ['name', 'consents'] });
export const LoginBody = z.object({ phone: E164Phone.optional(), email: Email.optional() }).openapi('LoginRequest', PHONE_OR_EMAIL);
export const VerifyOtpBody = z
  .object({ phone: E164Phone.optional(), email: Email.optional(), otp: Otp })
  .refine((b) => b.phone !== undefined || b.email !== undefined, { message: 'Provide phone or email', path: ['phone'] })
  .openapi('VerifyOtpRequest', PHONE_OR_EMAIL);
export const MagicLinkBody = z.object({ token: chars(20, 200) }).openapi('MagicLinkRequest');
export const ConsentsBody = z.object({ consents: ConsentList }).openapi('ConsentsRequest', { required: ['consents'] });
export const UpdateMeBody = z.strictObject({ name: Name.optional(), email: Email.nullable().optional() }).openapi('UpdateMeRequest');
export const ChangePhoneBody = z.object({ newPhone: SaudiPhone }).openapi('ChangePhoneRequest');
export const VerifyChangePhoneBody = z.object({ newPhone: SaudiPhone, otp: Otp }).openapi('VerifyChangePhoneRequest');
export const VerifyChangeEmailBody = z.object({ newEmail: Email, otp: Otp }).openapi('VerifyChangeEmailRequest');

export const SignInUser = z
  .object({
    id: z.uuid(),
    phone: z.string().nullable(),
    name: z.string(),
    email: z.string().nullable(),
    appRole: z.enum(APP_ROLES),
    identityType: z.enum(IDENTITY_TYPES),
  })
  .openapi('SignInUser');
export const ProfileUser = SignInUser.extend({ isActive: z.boolean(), createdAt: z.iso.datetime() }).openapi('ProfileUser');
export const SessionUser = ProfileUser.extend({
  managedAreas: z.array(z.string()).nullable(),
  managedAreasWrite: z.array(z.string()).nullable(),
}).openapi('SessionUser');

export const SessionObject = z
  .object({
    clientType: z.enum(['mobile', 'web']),
    expiresAt: z.iso.datetime(),
    token: z.string().optional().openapi({ description: 'Mobile only' }),
  })
  .openapi('Session');

const LocalizedMessage = z.string().openapi({ description: 'Localized by Accept-Language' });
export const MessageResponse = z.object({ message: LocalizedMessage }).openapi('MessageResponse');
export const RegisterResponse = z.object({ userId: z.uuid(), message: LocalizedMessage }).openapi('RegisterResponse');
export const SignInResponse = z.object({ user: SignInUser, session: SessionObject }).openapi('SignInResponse');
export const MagicLinkResponse = SignInResponse.extend({
  b2b: z.object({
    nextStep: z.enum(['iccid_entry', 'identity_entry', 'identity_waiting', 'done']),
    packageId: z.uuid().nullable(),
    activationId: z.uuid().nullable(),
    consentsRequired: z.array(z.enum(REQUIRED_CONSENT_TYPES)),
  }),
}).openapi('MagicLinkResponse');
export const ConsentsResponse = z.object({ data: z.object({ recorded: z.literal(true) }) }).openapi('ConsentsResponse');
export const SessionResponse = z.object({ session: SessionObject.omit({ token: true }), user: SessionUser }).openapi('SessionResponse');
export const VerifyChangePhoneResponse = z.object({ data: ProfileUser, message: LocalizedMessage }).openapi('VerifyChangePhoneResponse');
export const VerifyChangeEmailResponse = z.object({ data: ProfileUser, message: LocalizedMessage }).openapi('VerifyChangeEmailResponse');
