import { guard } from '../http/guards';
import { keptAnswer, queryKey, type KeptDeps } from '../http/kept';
import { csv, json, type Api } from '../http/route';
import type { AdminLinkReads } from './reads';
import * as s from './schemas';

/** Every company's invitation links for b2b staff: GET /admin/links and GET /admin/links/export (read-only, View). */
export function adminLinkRoutes(api: Api, deps: KeptDeps & { reads: AdminLinkReads }): void {
  const tag = 'Administration: links';
  const { reads, cache } = deps;

  api.define(
    {
      method: 'get',
      path: '/admin/links',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'List invitation links',
      description:
        'Every company’s links, newest first (minting time), offset-paged; optionally one status (lazy expiry applied: an ' +
        '`issued`, `sent` or `exported` link past its expiry reads and filters as `expired`) and a search on the person’s or ' +
        'the company’s name. Contacts are masked; tokens and hashes never appear. `stats` counts every company’s links and ' +
        'ignores the filters. Read-only: reading an expired link writes nothing.',
      query: s.AdminLinkListQuery,
      response: json(s.AdminLinkList),
      errors: [],
    },
    ({ query }) =>
      keptAnswer(
        cache,
        `admin-links:${queryKey(query)}`,
        () => reads.list(query),
        () => ['links', 'users', 'companies'],
      ),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/links/export',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'Export invitation links (links.csv)',
      description:
        'The list’s filters, no paging: at most 5,000 rows, newest first, masked as in the list. Columns: person, company, ' +
        'channel, destination, status, expires_at, last_update. `X-Truncated: true` only when more rows matched than the cap.',
      query: s.AdminLinkExportQuery,
      response: csv('links.csv'),
      errors: [],
    },
    ({ query }) => reads.exportCsv(query),
  );
}
