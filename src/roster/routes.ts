import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { csv, json, type Api } from '../http/route';
import { keptAnswer, queryKey, type KeptDeps } from '../http/kept';
import * as s from './schemas';
import type { RosterAssignment } from './assignment';
import type { RosterService } from './service';

export interface RosterRouteDeps extends KeptDeps {
  roster: RosterService;
  assignment: RosterAssignment;
}

/** The company roster in the portal: list, people.csv, staging, an entry's assignment and removal (links are in src/links). */
export function rosterRoutes(api: Api, deps: RosterRouteDeps): void {
  const tag = 'Portal: roster';
  const { roster, assignment } = deps;
  const actor = (p: { user: { id: string } }, c: { companyId: string }, req: Parameters<typeof auditRequestContext>[0]) => ({
    userId: p.user.id,
    companyId: c.companyId,
    ...auditRequestContext(req),
  });

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
    ({ query, company }) =>
      keptAnswer(
        deps.cache,
        `roster:${company.companyId}:${queryKey(query)}`,
        () => roster.list(company.companyId, query),
        // Each person shown, and any user's contacts when the answer is a search by contact.
        (answer) => [
          `company:${company.companyId}`,
          ...(answer as { data: { entries: Array<{ userId: string }> } }).data.entries.map((e) => `user:${e.userId}` as const),
          ...(query.search?.trim() ? ['users' as const] : []),
        ],
      ),
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
    ({ company, principal, req }) => roster.exportCsv(actor(principal, company, req)),
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
      data: await roster.stage(actor(principal, company, req), body.rows),
    }),
  );

  api.define(
    {
      method: 'patch',
      path: '/b2b/roster/:rosterId',
      tag,
      guard: guard.company('write'),
      summary: 'Assign a package or contract line to a roster entry',
      description:
        'Exactly one of packageId (flexible) or contractItemId (prepaid; a company with no mode counts as prepaid); null clears. ' +
        "A prepaid write copies the line's package. Every write clears the price snapshot. Refused when the person ever " +
        'redeemed a link (ROSTER_SEAT_CONSUMED) or holds a live issued, sent or exported link (ROSTER_LINK_OPEN).',
      params: s.RosterIdParams,
      body: s.AssignBody,
      response: json(s.AssignResponse),
      errors: [
        'VALIDATION_INVALID_INPUT',
        'ROSTER_ENTRY_NOT_FOUND',
        'PACKAGE_NOT_FOUND',
        'CONTRACT_ITEM_NOT_FOUND',
        'ROSTER_LINK_OPEN',
        'ROSTER_SEAT_CONSUMED',
      ],
    },
    async ({ params, body, principal, company, req }) => ({
      data: await assignment.assign(actor(principal, company, req), params.rosterId, body),
    }),
  );

  api.define(
    {
      method: 'delete',
      path: '/b2b/roster/:rosterId',
      tag,
      guard: guard.company('write'),
      summary: 'Remove a roster entry',
      description:
        'Hard delete of the sessions, link history, roster row and staged account, under the same guards, plus a final check ' +
        'that the account is still a bare staged end user of this company with no activation ever (else ROSTER_SEAT_CONSUMED).',
      params: s.RosterIdParams,
      response: json(s.RemoveResponse),
      errors: ['ROSTER_ENTRY_NOT_FOUND', 'ROSTER_LINK_OPEN', 'ROSTER_SEAT_CONSUMED'],
    },
    async ({ params, principal, company, req }) => ({ data: await assignment.remove(actor(principal, company, req), params.rosterId) }),
  );
}
