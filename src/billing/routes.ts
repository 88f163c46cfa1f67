import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { keptAnswer, type KeptDeps } from '../http/kept';
import { csv, json, type Api } from '../http/route';
import * as s from './schemas';
import type { BillingService } from './service';

export interface BillingRouteDeps extends KeptDeps {
  billing: BillingService;
}

/** The portal's dashboard and billing: GET /b2b/dashboard, GET /b2b/billing, GET /b2b/billing/export. */
export function billingRoutes(api: Api, deps: BillingRouteDeps): void {
  const tag = 'Portal: dashboard and billing';
  const { billing, cache } = deps;

  api.define(
    {
      method: 'get',
      path: '/b2b/dashboard',
      tag,
      guard: guard.company('read'),
      summary: 'The company’s dashboard',
      description:
        'hasLaunched: a link was ever minted for the company. invitesSent30d: links minted (send or export) in the last 30 days. ' +
        'The tiles count each roster person once, by their latest link: activated (`used`), pending (issued, sent or exported ' +
        'and not past expiry), failed (`failed`); revoked and expired persons match none. activity: the 8 most recent link ' +
        'events, newest first, each with the person’s name only (no contact, id number or identity type).',
      response: json(s.DashboardResponse),
      errors: [],
    },
    ({ company }) =>
      keptAnswer(
        cache,
        `dashboard:${company.companyId}`,
        async () => ({ data: await billing.dashboard(company.companyId) }),
        () => [`company:${company.companyId}`, 'users'],
      ),
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/billing',
      tag,
      guard: guard.company('read'),
      summary: 'The company’s billing',
      description:
        'A charge is a paid order of the company whose activation is still alive (not failed or cancelled), one per order, ' +
        'newest first. outstandingSar is Σ charges in both modes (flexible: the drawn total) and the charges sum to it exactly; ' +
        'accruedThisMonthSar is Σ charges dated in the current UTC calendar month. paidSar is Σ payments recorded on the active ' +
        'contract; flexible adds availableSar (paidSar − outstandingSar) and activeLines; prepaid has linesDrawn (seats ' +
        'consumed over Σ qty). With no active contract: the zeroed shape, not 404. No document bytes.',
      response: json(s.BillingResponse),
      errors: [],
    },
    ({ company }) =>
      keptAnswer(
        cache,
        `billing:${company.companyId}`,
        () => billing.billing(company.companyId),
        () => [`company:${company.companyId}`, 'users'],
      ),
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/billing/export',
      tag,
      guard: guard.company('read'),
      summary: 'Export the charges (charges.csv)',
      description:
        'The rows of GET /b2b/billing’s charges, in the same order, no paging or filters: date (ISO 8601 UTC), person, ' +
        'package (English catalog name), amount_sar (two decimals). Audited as `company.billing_export` with the row count.',
      response: csv('charges.csv'),
      errors: [],
    },
    ({ company, principal, req }) =>
      billing.exportCsv({ userId: principal.user.id, companyId: company.companyId, ...auditRequestContext(req) }),
  );
}
