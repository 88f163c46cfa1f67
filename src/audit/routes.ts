import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { AuditReads } from './reads';
import * as s from './schemas';

/** The audit trail is readable, so it is not write-only: super_admin, paged. */
export function auditRoutes(api: Api, deps: { reads: AuditReads }): void {
  api.define(
    {
      method: 'get',
      path: '/admin/audit-events',
      tag: 'Administration',
      guard: guard.superAdmin,
      summary: 'Read the audit trail',
      description:
        'Every audited action (administration users, blocklists, organization settings, company status, reconciliation, …), ' +
        'newest first, offset-paged. Filters combine: `action`, `companyId`, `entityType` (+ `entityId`). Each row was written in ' +
        'the transaction of the change it records; none holds a token, OTP, raw link or document bytes. super_admin only: the trail ' +
        'spans every area.',
      query: s.AuditEventListQuery,
      response: json(s.AuditEventList),
      errors: [],
    },
    ({ query }) => deps.reads.list(query),
  );
}
