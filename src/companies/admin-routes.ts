import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { CompanyAdmin } from './admin-service';
import * as s from './schemas';

export interface CompanyAdminRouteDeps {
  companyAdmin: CompanyAdmin;
}

/** Internal administration of companies: GET /admin/companies, GET /admin/companies/:id, POST /admin/companies/:id/status. */
export function companyAdminRoutes(api: Api, deps: CompanyAdminRouteDeps): void {
  const tag = 'Administration: companies';
  const { companyAdmin } = deps;

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
    ({ query }) => companyAdmin.list(query),
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
        'at once, one wins and the other gets COMPANY_INVALID_TRANSITION. SERVICE_UNAVAILABLE: the run did not answer in ' +
        'time; the action may still be applied, read the company again.',
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
