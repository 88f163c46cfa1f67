import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { keptAnswer, queryKey, type KeptDeps } from '../http/kept';
import type { CompanyAdmin } from './admin-service';
import type { CompanyInvites } from './invites';
import * as s from './schemas';

export interface CompanyAdminRouteDeps extends KeptDeps {
  companyAdmin: CompanyAdmin;
  invites: CompanyInvites;
}

/**
 * Internal administration of companies: GET /admin/companies, POST /admin/companies/invites,
 * GET /admin/companies/:id, POST /admin/companies/:id/status.
 */
export function companyAdminRoutes(api: Api, deps: CompanyAdminRouteDeps): void {
  const tag = 'Administration: companies';
  const { companyAdmin, invites } = deps;

  // The literal path before the `:id` routes (they do not collide: another method and depth).
  api.define(
    {
      method: 'post',
      path: '/admin/companies/invites',
      tag,
      guard: guard.superAdmin,
      summary: 'Invite a company portal user',
      description:
        'Provisions a user with app role `b2b_admin` (phone Saudi E.164 and/or e-mail, both unique across all users), who signs ' +
        'in by OTP. With `companyId` the user joins that company as `role`; a first admin invite has no company and the user ' +
        'registers it (POST /b2b/company). super_admin only (no area admits it). Audited as `company.user_invited`; the user ' +
        'and the membership are one transaction.',
      body: s.CompanyInviteBody,
      response: json(s.CompanyInvite, { status: 201 }),
      errors: [
        'COMPANY_NOT_FOUND',
        'ADMIN_USER_PHONE_EXISTS',
        'ADMIN_USER_EMAIL_EXISTS',
        'ADMIN_USER_CREATE_FAILED',
        'ADMIN_USER_PROFILE_NOT_CREATED',
      ],
    },
    async ({ body, principal, req }) => ({
      data: await invites.invite({ userId: principal.user.id, ...auditRequestContext(req) }, body),
    }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/companies',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'List companies',
      description: 'Newest first (registration time), offset-paged; optionally one status and a search on the name or CR number.',
      query: s.AdminCompanyListQuery,
      response: json(s.AdminCompanyList),
      errors: [],
    },
    ({ query }) =>
      keptAnswer(
        deps.cache,
        `admin-companies:${queryKey(query)}`,
        () => companyAdmin.list(query),
        () => ['companies'],
      ),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/companies/:id',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'One company',
      params: s.CompanyIdParams,
      response: json(s.CompanyResponse),
      errors: ['COMPANY_NOT_FOUND'],
    },
    async ({ params }) => ({ data: await companyAdmin.get(params.id) }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/companies/:id/status',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Approve, reject, suspend or reactivate a company',
      description:
        'pending → approve → approved (stamps approvedBy and approvedAt; the company admins get an e-mail and SMS notice, best ' +
        'effort), pending → reject → rejected, approved → suspend → suspended (every member’s live session is revoked), ' +
        'suspended → reactivate → approved (no re-stamp, no notice). Any other pair is COMPANY_INVALID_TRANSITION with ' +
        '`details: { from, action }` and nothing is written. The company’s onboarding run decides and writes the status with ' +
        'its audit row (`company.status_changed`, the reason only there), one action at a time: of two administrators acting ' +
        'at once, one wins and the other gets COMPANY_INVALID_TRANSITION, and so does a request repeated after its answer. ' +
        'SERVICE_UNAVAILABLE: the run did not answer in time; the action may still be applied: read the company again, or send ' +
        'the same request again (same action, reason and administrator: it gets the one result).',
      params: s.CompanyIdParams,
      body: s.CompanyStatusBody,
      response: json(s.CompanyResponse),
      errors: ['COMPANY_NOT_FOUND', 'COMPANY_INVALID_TRANSITION', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, body, principal, req }) => ({
      data: await companyAdmin.changeStatus(
        { userId: principal.user.id, ...auditRequestContext(req) },
        params.id,
        body.action,
        body.reason,
      ),
    }),
  );
}
