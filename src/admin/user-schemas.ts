import { E164Phone, Email, PathId, PHONE_OR_EMAIL, SaudiPhone, text } from '../http/fields';
import { STAFF_AREAS } from '../http/guards';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';
import { STAFF_ROLES } from './repository';

const Areas = (description: string) =>
  z
    .array(z.enum(STAFF_AREAS))
    .max(20)
    .openapi({ description: `${description} Areas: ${STAFF_AREAS.join(', ')}; duplicates count once. Only for appRole admin.` });

const ViewAreas = Areas('Areas the admin may view (managedAreas); every area in managedAreasWrite is added (write implies view).');
const WriteAreas = Areas('Areas the admin may manage (managedAreasWrite).');

export const CreateAdminUserBody = z
  .strictObject({
    appRole: z.enum(STAFF_ROLES).openapi({ description: 'Staff role; company staff are invited (POST /admin/companies/invites)' }),
    name: text(1, 255, 'Name'),
    phone: SaudiPhone.optional(),
    email: Email.optional(),
    managedAreas: ViewAreas.optional(),
    managedAreasWrite: WriteAreas.optional(),
  })
  .refine((b) => b.phone !== undefined || b.email !== undefined, { path: ['phone'], message: 'Give a phone number or an e-mail address' })
  .refine((b) => b.appRole === 'admin' || (!b.managedAreas?.length && !b.managedAreasWrite?.length), {
    path: ['managedAreas'],
    message: 'Only admin users hold areas',
  })
  .openapi('CreateAdminUserRequest', {
    allOf: [
      PHONE_OR_EMAIL,
      // Areas only for admin: any other role sends none (or empty lists).
      {
        anyOf: [
          { properties: { appRole: { const: 'admin' } } },
          { properties: { managedAreas: { maxItems: 0 }, managedAreasWrite: { maxItems: 0 } } },
        ],
      },
    ],
  });

export const UpdateAdminUserBody = z
  .strictObject({
    name: text(1, 255, 'Name').optional(),
    managedAreas: ViewAreas.optional(),
    managedAreasWrite: WriteAreas.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { path: [''], message: 'Give name, managedAreas or managedAreasWrite' })
  .openapi('UpdateAdminUserRequest', { minProperties: 1 });

export const AdminUserParams = z.object({ id: PathId });

export const AdminUserListQuery = z.strictObject({
  ...offsetParams,
  role: z.enum(STAFF_ROLES).optional().openapi({ description: 'Only this staff role' }),
  phone: E164Phone.optional().openapi({ description: 'Exact phone number (E.164)' }),
  email: Email.optional().openapi({ description: 'Exact e-mail address (case-insensitive)' }),
});

export const AdminUser = z
  .object({
    id: z.uuid(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string(),
    appRole: z.enum(STAFF_ROLES),
    isActive: z.boolean(),
    managedAreas: z.array(z.enum(STAFF_AREAS)).nullable().openapi({ description: 'admin users only; null for every other role' }),
    managedAreasWrite: z.array(z.enum(STAFF_AREAS)).nullable().openapi({ description: 'admin users only; null for every other role' }),
    createdAt: z.iso.datetime(),
  })
  .openapi('AdminUser');

export const AdminUserResponse = z.object({ data: AdminUser }).openapi('AdminUserResponse');
export const AdminUserList = offsetPage('AdminUserList', 'users', AdminUser);
export const AdminUserDeleted = z.object({ data: z.object({ id: z.uuid(), deleted: z.literal(true) }) }).openapi('AdminUserDeleted');
