import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import * as s from './schemas';
import type { Links } from './service';

export interface LinkRouteDeps {
  links: Links;
}

const MINT_ERRORS = ['CONTRACT_ITEM_NOT_FOUND', 'PACKAGE_NOT_FOUND', 'COMPANY_NOT_READY'] as const;
const LIFETIME = 'Each link lives 24 hours; only the SHA-256 of its token is stored.';
const PIPELINE =
  'One transaction per call with the company locked, so two admins minting at once stay exact. Entries are decided in rosterId ' +
  'order: ROSTER_ENTRY_NOT_FOUND, LINK_USER_ALREADY_ACTIVE (latest activation `activated`), then prepaid: the line the person ' +
  'already holds a seat on, else the default, else their own (none: LINK_PACKAGE_NOT_ASSIGNED; no seat left: ' +
  'ACTIVATION_QUOTA_EXCEEDED; a person already holding a seat on the line re-mints without drawing another); flexible: their ' +
  'package when they hold a seat, else the default, else their own (none: LINK_PACKAGE_NOT_ASSIGNED; lost its B2B price: ' +
  'LINK_PACKAGE_UNAVAILABLE; funded − drawn − committed − accepted so far below the price: COMPANY_BALANCE_EXCEEDED). ' +
  "Minting revokes the person's prior active links (a redeemed one survives) and snapshots the price on the roster row. " +
  'Audited once as `company.links_minted` with counts only.';

/** Invitation links of the portal: send, export, reissue-expired, revoke. */
export function linkRoutes(api: Api, deps: LinkRouteDeps): void {
  const tag = 'Portal: roster';
  const { links } = deps;
  const actor = (p: { user: { id: string } }, c: { companyId: string }, req: Parameters<typeof auditRequestContext>[0]) => ({
    userId: p.user.id,
    companyId: c.companyId,
    ...auditRequestContext(req),
  });

  api.define(
    {
      method: 'post',
      path: '/b2b/roster/links/send',
      tag,
      guard: guard.company('write'),
      summary: 'Mint and deliver invitation links',
      description:
        `${PIPELINE} ${LIFETIME} Each minted link is delivered by e-mail and SMS to every contact the person has, after the ` +
        'mint committed; it is `sent` when one channel took it, else `failed` and reported as LINK_DELIVERY_FAILED.',
      body: s.SendLinksBody,
      response: json(s.SendLinksResponse),
      errors: MINT_ERRORS,
    },
    async ({ body, principal, company, req }) => ({ data: await links.send(actor(principal, company, req), body) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/roster/links/export',
      tag,
      guard: guard.company('write'),
      summary: 'Mint invitation links and return them raw',
      description: `${PIPELINE} ${LIFETIME} The raw links are in this answer only (status \`exported\`).`,
      body: s.ExportLinksBody,
      response: json(s.ExportLinksResponse),
      errors: MINT_ERRORS,
    },
    async ({ body, principal, company, req }) => ({ data: await links.exportLinks(actor(principal, company, req), body) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/roster/links/reissue-expired',
      tag,
      guard: guard.company('write'),
      summary: 'Re-mint every expired link',
      description:
        'Entries whose latest link is effectively expired (lazy expiry included) go through the export pipeline. Nothing ' +
        'expired: an empty answer, no mint, no audit.',
      response: json(s.ExportLinksResponse),
      errors: ['COMPANY_NOT_READY'],
    },
    async ({ principal, company, req }) => ({ data: await links.reissueExpired(actor(principal, company, req)) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/roster/links/revoke',
      tag,
      guard: guard.company('write'),
      summary: 'Revoke invitation links',
      description:
        'Per entry: ROSTER_ENTRY_NOT_FOUND, LINK_ALREADY_USED (ever redeemed), NO_ACTIVE_LINK (no link stored as issued, ' +
        'sent or exported); otherwise every active link of the entry, stale ones past expiry included (also when it has no ' +
        'other), becomes `revoked`, freeing the seat. The person is not notified. Audited once as `company.links_revoke` ' +
        'with counts.',
      body: s.RevokeLinksBody,
      response: json(s.RevokeLinksResponse),
      errors: [],
    },
    async ({ body, principal, company, req }) => ({ data: await links.revoke(actor(principal, company, req), body.rosterIds) }),
  );
}
