import { APP_ROLES, IDENTITY_TYPES, REQUIRED_CONSENT_TYPES, CONSENT_TYPES } from '../entities';
import { z } from '../openapi/registry';

/** Self-service phones are Saudi E.164: +966 and 9 digits. */
export const SaudiPhone = z
  .string()
  .regex(/^\+966\d{9}$/, 'Phone must be a Saudi E.164 number: +966 followed by 9 digits')
  .openapi({ example: '+966501234567' });
/**
 * Sign-in phones are any E.164 number: company-staged accounts need not be Saudi.
 * Same rule as the create-user command (7 to 15 digits), so every staged phone can sign in.
 */
export const E164Phone = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'Phone must be an E.164 number: + and 7 to 15 digits')
  .openapi({ example: '+966501234567' });
export const Email = z
  .email({ message: 'Invalid e-mail address' })
  .max(254)
  .transform((v) => v.toLowerCase())
  .openapi({ example: 'sara@example.com' });
export const Name = z.string().trim().min(1, 'Name is required').max(255, 'Name must be at most 255 characters');
export const Otp = z
  .string()
  .regex(/^\d{6}$/, 'OTP must be 6 digits')
  .openapi({ example: '123456' });

/** Consents are checked by `consentsValid` (AUTH_CONSENT_REQUIRED), not by the schema. */
export const Consent = z.object({ type: z.enum(CONSENT_TYPES), version: z.string().min(1).max(64) }).openapi('Consent');
const ConsentList = z
  .unknown()
  .optional()
  .openapi({ type: 'array', items: { $ref: '#/components/schemas/Consent' }, minItems: 3, maxItems: 3 });

export function consentsValid(value: unknown): value is z.infer<typeof Consent>[] {
  const list = z.array(Consent).length(3).safeParse(value);
  if (!list.success) return false;
  const types = new Set(list.data.map((c) => c.type));
  return types.size === 3 && REQUIRED_CONSENT_TYPES.every((t) => types.has(t));
}

export const RegisterBody = z
  .object({ phone: SaudiPhone.optional(), email: Email.optional(), name: Name, consents: ConsentList })
  .openapi('RegisterRequest');
export const LoginBody = z.object({ phone: E164Phone.optional(), email: Email.optional() }).openapi('LoginRequest');
export const VerifyOtpBody = z
  .object({ phone: E164Phone.optional(), email: Email.optional(), otp: Otp })
  .refine((b) => b.phone !== undefined || b.email !== undefined, { message: 'Provide phone or email', path: ['phone'] })
  .openapi('VerifyOtpRequest');
export const MagicLinkBody = z.object({ token: z.string().min(20).max(200) }).openapi('MagicLinkRequest');
export const ConsentsBody = z.object({ consents: ConsentList }).openapi('ConsentsRequest');
export const UpdateMeBody = z.strictObject({ name: Name.optional(), email: Email.nullable().optional() }).openapi('UpdateMeRequest');
export const ChangePhoneBody = z.object({ newPhone: SaudiPhone }).openapi('ChangePhoneRequest');
export const VerifyChangePhoneBody = z.object({ newPhone: SaudiPhone, otp: Otp }).openapi('VerifyChangePhoneRequest');

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
