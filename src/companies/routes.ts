import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { keptAnswer, type KeptDeps } from '../http/kept';
import type { CompanyService } from './service';
import * as s from './schemas';

export interface CompanyRouteDeps extends KeptDeps {
  companies: CompanyService;
}

/** The portal's own company: GET and POST /b2b/company, PATCH /b2b/company/payment-mode, GET /b2b/readiness. */
export function companyRoutes(api: Api, deps: CompanyRouteDeps): void {
  const tag = 'Portal: company';
  const { companies, cache } = deps;

  api.define(
    {
      method: 'get',
      path: '/b2b/company',
      tag,
      guard: guard.portal,
      summary: 'The caller’s company and role',
      description:
        'No membership or approval needed: a company in any status is answered. `company` and `role` are both null when the ' +
        'caller was invited but has not registered a company yet.',
      response: json(s.MyCompanyResponse),
      errors: [],
    },
    ({ principal }) =>
      keptAnswer(
        cache,
        `company-mine:${principal.user.id}`,
        async () => ({ data: await companies.mine(principal.user.id) }),
        (answer) => {
          const company = (answer as { data: { company: { id: string } | null } }).data.company;
          return [`user:${principal.user.id}`, ...(company ? [`company:${company.id}` as const] : [])];
        },
      ),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/company',
      tag,
      guard: guard.portal,
      summary: 'Register the caller’s company',
      description:
        'Creates the company `pending` and the caller’s `admin` membership in one transaction, then starts the company’s ' +
        'onboarding run (`company:<id>` in Temporal); when Temporal cannot take the start, the worker starts the run as soon as it ' +
        'answers (until then status actions answer SERVICE_UNAVAILABLE). COMPANY_CREATE_FAILED is not produced. ' +
        'A caller who already belongs to a company gets COMPANY_ALREADY_REGISTERED; a CR number already registered ' +
        '(exactly as stored, after trimming) COMPANY_CR_EXISTS. `inKsa` is validated, never stored.',
      body: s.RegisterCompanyBody,
      response: json(s.RegisteredCompanyResponse, { status: 201 }),
      errors: ['COMPANY_ALREADY_REGISTERED', 'COMPANY_CR_EXISTS'],
    },
    async ({ body, principal }) => ({ data: await companies.register(principal.user.id, body) }),
  );

  api.define(
    {
      method: 'patch',
      path: '/b2b/company/payment-mode',
      tag,
      guard: guard.company('write'),
      summary: 'Pick the company’s payment mode',
      description:
        '`prepaid` or `flexible`; switches freely until the company has an active contract (then CONTRACT_ALREADY_EXISTS). ' +
        'The same mode again changes nothing. A change is audited (`company.payment_mode_changed`, before and after).',
      body: s.PaymentModeBody,
      response: json(s.CompanyWrapped),
      errors: ['COMPANY_NOT_FOUND', 'CONTRACT_ALREADY_EXISTS'],
    },
    async ({ body, principal, company, req }) => ({
      data: await companies.setPaymentMode({ userId: principal.user.id, ...auditRequestContext(req) }, company.companyId, body.paymentMode),
    }),
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/readiness',
      tag: 'Portal: contract and readiness',
      guard: guard.company('read'),
      summary: 'The company’s readiness to send links',
      description: 'Read from the database on every call: the contract, payment and roster gates, and whether all three pass.',
      response: json(s.ReadinessResponse),
      errors: [],
    },
    ({ company }) =>
      keptAnswer(
        cache,
        `readiness:${company.companyId}`,
        async () => ({ data: await companies.readiness(company.companyId) }),
        () => [`company:${company.companyId}`],
      ),
  );
}
