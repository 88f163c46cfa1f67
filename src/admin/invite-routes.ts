import { auditRequestContext } from '../audit/writer';
import { COMPANY_ROLES } from '../entities';
import { Email, PHONE_OR_EMAIL, SaudiPhone, text, Uuid } from '../http/fields';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { z } from '../openapi/registry';
import type { CompanyInvites } from './invites';

export const CompanyInviteBody = z
  .strictObject({
    phone: SaudiPhone.optional(),
    email: Email.optional(),
    name: text(1, 255, 'Name'),
    role: z.enum(COMPANY_ROLES).openapi({ description: 'Role in the company: admin (read and write) or member (read-only)' }),
    companyId: Uuid.optional().openapi({ description: 'The company to join; required for a member. A first admin has none.' }),
  })
  .refine((b) => b.phone !== undefined || b.email !== undefined, { path: ['phone'], message: 'Give a phone number or an e-mail address' })
  .refine((b) => b.role !== 'member' || b.companyId !== undefined, { path: ['companyId'], message: 'companyId is required for a member' })
  .openapi('CompanyInviteRequest', {
    allOf: [
      PHONE_OR_EMAIL,
      { anyOf: [{ properties: { role: { const: 'admin' } } }, { properties: { role: { const: 'member' } }, required: ['companyId'] }] },
    ],
  });

export const CompanyInvite = z
  .object({
    data: z.object({
      user: z.object({
        id: z.uuid(),
        phone: z.string().nullable(),
        email: z.string().nullable(),
        name: z.string(),
        role: z.literal('b2b_admin').openapi({ description: 'The app role' }),
        isActive: z.boolean(),
        createdAt: z.iso.datetime(),
      }),
      companyId: z.uuid().nullable().openapi({ description: 'Null for a first admin: registering the company creates it' }),
      companyRole: z.enum(COMPANY_ROLES),
    }),
  })
  .openapi('CompanyInvite');

export function companyInviteRoutes(api: Api, deps: { invites: CompanyInvites }): void {
  api.define(
    {
      method: 'post',
      path: '/admin/companies/invites',
      tag: 'Administration: companies',
      guard: guard.superAdmin,
      summary: 'Invite a company portal user',
      description:
        'Provisions a user with app role `b2b_admin` (phone Saudi E.164 and/or e-mail, both unique across all users), who signs ' +
        'in by OTP. With `companyId` the user joins that company as `role`; a first admin invite has no company and the user ' +
        'registers it (POST /b2b/company). super_admin only (no area admits it). Audited as `company.user_invited`; the user ' +
        'and the membership are one transaction.',
      body: CompanyInviteBody,
      response: json(CompanyInvite, { status: 201 }),
      errors: [
        'COMPANY_NOT_FOUND',
        'ADMIN_USER_PHONE_EXISTS',
        'ADMIN_USER_EMAIL_EXISTS',
        'ADMIN_USER_CREATE_FAILED',
        'ADMIN_USER_PROFILE_NOT_CREATED',
      ],
    },
    async ({ body, principal, req }) => ({
      data: await deps.invites.invite({ userId: principal.user.id, ...auditRequestContext(req) }, body),
    }),
  );
}
