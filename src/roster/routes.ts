import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { csv, json, type Api } from '../http/route';
import * as s from './schemas';
import type { RosterService } from './service';

export interface RosterRouteDeps {
  roster: RosterService;
}

/** The company roster in the portal: list, people.csv, staging (links, assignment and removal come later). */
export function rosterRoutes(api: Api, deps: RosterRouteDeps): void {
  const tag = 'Portal: roster';
  const { roster } = deps;

  api.define(
    {
      method: 'get',
      path: '/b2b/roster',
      tag,
      guard: guard.company('read'),
      summary: 'List the roster',
      description:
        'Newest first, offset-paged. `linkStatus` filters on the latest link of each entry (a copy kept on the entry by the ' +
        'database, so the filter pages and counts like the others); `search` finds the one entry with that exact phone or e-mail.',
      query: s.RosterListQuery,
      response: json(s.RosterList),
      errors: [],
    },
    ({ query, company }) => roster.list(company.companyId, query),
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/roster/export',
      tag,
      guard: guard.company('read'),
      summary: 'Export the roster (people.csv)',
      description:
        'The whole roster, newest first, no paging or filters: name, contact (the unmasked e-mail, or the phone when there is ' +
        'none), identity_type, nationality, roster_status, link_status (lazy expiry applied; empty when no link), link_expires_at, ' +
        'package (English catalog name assigned at mint; empty before), created_at. No id, token or link column. ' +
        "Text cells that could run as spreadsheet formulas get a leading `'`; a contact that is exactly an E.164 number or a " +
        'plain e-mail address (letters, digits and `._%+-` before the @) is written as it is. ' +
        'Audited as `company.roster_export` with the row count.',
      response: csv('people.csv'),
      errors: [],
    },
    ({ company, principal, req }) =>
      roster.exportCsv({ userId: principal.user.id, companyId: company.companyId, ...auditRequestContext(req) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/roster/stage',
      tag,
      guard: guard.company('write'),
      summary: 'Stage roster rows',
      description:
        'Partial accept: always 200 when the request itself is valid, with the number staged and every rejected row ' +
        '(sorted by row number). Each staged row creates an end-user account (contact encrypted, found by its keyed hash) and a ' +
        '`staged` roster entry. A contact already on this roster is ROSTER_ROW_ALREADY_ON_ROSTER (uploading the same file ' +
        'again stages nothing twice); one held by any other account is ROSTER_ROW_CONTACT_EXISTS. Two requests staging the ' +
        'same contact at once stage it once.',
      body: s.StageRosterBody,
      bodyOptions: { limit: '1mb' },
      response: json(s.StageRosterResponse),
      errors: [],
    },
    async ({ body, company, principal, req }) => ({
      data: await roster.stage({ userId: principal.user.id, companyId: company.companyId, ...auditRequestContext(req) }, body.rows),
    }),
  );
}
