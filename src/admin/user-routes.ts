import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { AdminUsers } from './users';
import * as s from './user-schemas';

const WHAT =
  'Administration users are staff: `admin` (portal areas for view and manage), `support`, `activation_officer` and ' +
  '`super_admin`; company staff are invited through POST /admin/companies/invites, end users register. super_admin only. ' +
  'Every change writes an `admin_user.*` audit row in the same transaction. Only staff are found here: any other id is ' +
  'ADMIN_USER_NOT_FOUND.';

/** /admin/users: create, list, read, update areas and name, deactivate, delete (the blocklist routes live in routes.ts). */
export function adminUserRoutes(api: Api, deps: { users: AdminUsers }): void {
  const tag = 'Administration';
  const { users } = deps;

  api.define(
    {
      method: 'post',
      path: '/admin/users',
      tag,
      guard: guard.superAdmin,
      summary: 'Create a staff user',
      description:
        'Phone (Saudi E.164) and/or e-mail, both unique across all users, proven by this creation (the person signs in with ' +
        'an OTP). Areas only for `admin`; every managed area is also viewed. The identity and its profile are one ' +
        'transaction: a failure after the identity row rolls it back (ADMIN_USER_PROFILE_NOT_CREATED), nothing is left ' +
        `orphaned. Audited as \`admin_user.created\`. ${WHAT}`,
      body: s.CreateAdminUserBody,
      response: json(s.AdminUserResponse, { status: 201 }),
      errors: ['ADMIN_USER_PHONE_EXISTS', 'ADMIN_USER_EMAIL_EXISTS', 'ADMIN_USER_CREATE_FAILED', 'ADMIN_USER_PROFILE_NOT_CREATED'],
    },
    async ({ body, principal, req }) => ({ data: await users.create({ userId: principal.user.id, ...auditRequestContext(req) }, body) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/users',
      tag,
      guard: guard.superAdmin,
      summary: 'List staff users',
      description: `Newest first, offset-paged; \`role\` filters, \`phone\` and \`email\` find one person exactly. ${WHAT}`,
      query: s.AdminUserListQuery,
      response: json(s.AdminUserList),
      errors: [],
    },
    ({ query }) => users.list(query),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/users/:id',
      tag,
      guard: guard.superAdmin,
      summary: 'Read a staff user',
      description: WHAT,
      params: s.AdminUserParams,
      response: json(s.AdminUserResponse),
      errors: ['ADMIN_USER_NOT_FOUND'],
    },
    async ({ params }) => ({ data: await users.get(params.id) }),
  );

  api.define(
    {
      method: 'patch',
      path: '/admin/users/:id',
      tag,
      guard: guard.superAdmin,
      summary: 'Update a staff user’s areas or name',
      description:
        'A list given replaces the stored one, a list left out keeps its value, and every managed area is also viewed (to take ' +
        'an area away entirely, send it in neither list). Areas only for `admin` users (others: ADMIN_USER_AREAS_NOT_ALLOWED). Takes ' +
        'effect on the next request: guards read areas from the database each time and GET /auth/session is not served from ' +
        `a stale cache. Audited as \`admin_user.areas_updated\` (before/after) and \`admin_user.renamed\`. ${WHAT}`,
      params: s.AdminUserParams,
      body: s.UpdateAdminUserBody,
      response: json(s.AdminUserResponse),
      errors: ['ADMIN_USER_NOT_FOUND', 'ADMIN_USER_AREAS_NOT_ALLOWED'],
    },
    async ({ params, body, principal, req }) => ({
      data: await users.update({ userId: principal.user.id, ...auditRequestContext(req) }, params.id, body),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/users/:id/deactivate',
      tag,
      guard: guard.superAdmin,
      summary: 'Deactivate a staff user',
      description:
        'The account can no longer sign in (AUTH_ACCOUNT_DEACTIVATED) and its live sessions are revoked in the same ' +
        'transaction. Deactivating an inactive user changes nothing; your own account is AUTH_FORBIDDEN. ' +
        `Audited as \`admin_user.deactivated\`. ${WHAT}`,
      params: s.AdminUserParams,
      response: json(s.AdminUserResponse),
      // AUTH_FORBIDDEN (from the guard's list): also your own account.
      errors: ['ADMIN_USER_NOT_FOUND'],
    },
    async ({ params, principal, req }) => ({
      data: await users.deactivate({ userId: principal.user.id, ...auditRequestContext(req) }, params.id),
    }),
  );

  api.define(
    {
      method: 'delete',
      path: '/admin/users/:id',
      tag,
      guard: guard.superAdmin,
      summary: 'Delete a staff user',
      description:
        'Removes the account with its sessions, codes and consents; audit rows it wrote keep their action with no actor. A ' +
        'user who has orders, activations or payments cannot be removed: ADMIN_USER_DELETE_FAILED with `details.reason` ' +
        '`HAS_RECORDS` (deactivate them instead). Your own account is AUTH_FORBIDDEN. Audited as ' +
        `\`admin_user.deleted\`. ${WHAT}`,
      params: s.AdminUserParams,
      response: json(s.AdminUserDeleted),
      errors: ['ADMIN_USER_NOT_FOUND', 'ADMIN_USER_DELETE_FAILED'],
    },
    async ({ params, principal, req }) => ({
      data: await users.remove({ userId: principal.user.id, ...auditRequestContext(req) }, params.id),
    }),
  );
}
