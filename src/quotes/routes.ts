import type { Request } from 'express';
import { auditRequestContext } from '../audit/writer';
import type { Principal } from '../auth/sessions';
import { languageOf } from '../http/errors';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { keptAnswer, type KeptDeps } from '../http/kept';
import type { QuoteActor } from '../../workflows/contracts/quote-contract';
import * as s from './schemas';
import { noteOf, type QuoteService } from './service';

export interface QuoteRouteDeps extends KeptDeps {
  quotes: QuoteService;
}

/** Who acts, for the rows' stamps and the audit row (never the client's X-Request-Id: update ids are the server's, src/quotes/runs-temporal.ts). */
export function actorOf(principal: Principal, req: Request): QuoteActor {
  return { userId: principal.user.id, ...auditRequestContext(req) };
}

const CATALOG_DESCRIPTION =
  'Every active package with a B2B price (of an active telecom operator), cheapest first, then by id. `name`, `description` ' +
  'and `operatorName` follow Accept-Language (`en` default, `ar`).';

export const ACTION_NOTE =
  'SERVICE_UNAVAILABLE: the chain’s run did not answer in time; the action may still be applied: read the quote again, or ' +
  'send the same request again (same caller and body: it gets the one result).';

/** The B2B catalog and the company's quotes (spec "Portal: catalog and quotes"). */
export function quoteRoutes(api: Api, deps: QuoteRouteDeps): void {
  const tag = 'Portal: catalog and quotes';
  const { quotes } = deps;

  api.define(
    {
      method: 'get',
      path: '/b2b/catalog',
      tag,
      guard: guard.company('read'),
      summary: 'The B2B catalog',
      description: CATALOG_DESCRIPTION,
      response: json(s.CatalogResponse),
      errors: [],
    },
    ({ req }) => {
      const lang = languageOf(req.headers['accept-language']);
      // Packages and operators only: their changes clear every kept answer.
      return keptAnswer(
        deps.cache,
        `catalog:${lang}`,
        async () => ({ data: await quotes.catalog(lang) }),
        () => [],
      );
    },
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/quotes',
      tag,
      guard: guard.company('read'),
      summary: 'List the company’s quotes',
      description:
        'One entry per chain, newest first (by the creation of its live version, so a chain with a new counter comes up), ' +
        'offset-paged. `status` matches the live version (the tip: the version without a child), so `countered` never matches.',
      query: s.QuoteListQuery,
      response: json(s.QuoteChainList),
      errors: [],
    },
    ({ query, company }) => quotes.list(company.companyId, query),
  );

  api.define(
    {
      method: 'get',
      path: '/b2b/quotes/:id',
      tag,
      guard: guard.company('read'),
      summary: 'One quote version',
      description:
        'Any version of the company’s chains, with its lines and the chain’s versions. Another company’s quote is QUOTE_NOT_FOUND, never 403.',
      params: s.QuoteIdParams,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND'],
    },
    async ({ params, company }) => ({ data: await quotes.get(company.companyId, params.id) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/quotes',
      tag,
      guard: guard.company('write'),
      summary: 'Create a draft quote',
      description:
        'A new chain: its first version `draft` with the needs and lines given (no prices: they are snapshotted when a contract ' +
        'is confirmed). Every package must be in the B2B catalog, else QUOTE_PACKAGE_NOT_FOUND with `details.packageIds`. ' +
        'The chain’s negotiation run (`quote:<id>` in Temporal) is started after the commit; when Temporal cannot take the ' +
        'start, the worker starts it as soon as Temporal answers (until then actions answer SERVICE_UNAVAILABLE). ' +
        'QUOTE_CREATE_FAILED is not produced.',
      body: s.QuoteBody,
      response: json(s.QuoteDetailResponse, { status: 201 }),
      errors: ['QUOTE_PACKAGE_NOT_FOUND'],
    },
    async ({ body, principal, company, req }) => ({ data: await quotes.create(actorOf(principal, req), company.companyId, body) }),
  );

  api.define(
    {
      method: 'patch',
      path: '/b2b/quotes/:id',
      tag,
      guard: guard.company('write'),
      summary: 'Replace a draft',
      description:
        'Replaces the needs and the lines wholesale; only a `draft` (else QUOTE_INVALID_STATE). Same body and package check as the create.',
      params: s.QuoteIdParams,
      body: s.QuoteBody,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_PACKAGE_NOT_FOUND', 'QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE'],
    },
    async ({ params, body, company }) => ({ data: await quotes.patch(company.companyId, params.id, body) }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/quotes/:id/submit',
      tag,
      guard: guard.company('write'),
      summary: 'Submit a draft',
      description:
        '`draft` → `submitted`. Needs at least one line unless `needs.fundingSar` is set (else QUOTE_INVALID_STATE). ' + ACTION_NOTE,
      params: s.QuotePathParams,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, principal, company, req }) => ({
      data: await quotes.act('submit', actorOf(principal, req), company.companyId, params.id),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/quotes/:id/accept',
      tag,
      guard: guard.company('write'),
      summary: 'Accept a counter-offer',
      description:
        'Only an administrator’s counter (parentId set) still `under_review` → `accepted`; an older version of the chain is ' +
        'QUOTE_VERSION_SUPERSEDED, any other state QUOTE_INVALID_STATE. ' +
        ACTION_NOTE,
      params: s.QuotePathParams,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'QUOTE_VERSION_SUPERSEDED', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, principal, company, req }) => ({
      data: await quotes.act('accept', actorOf(principal, req), company.companyId, params.id),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/b2b/quotes/:id/reject',
      tag,
      guard: guard.company('write'),
      summary: 'Decline a counter-offer',
      description:
        'Same eligibility as accept; → `rejected`, which ends the negotiation (the next move is a new quote). The reason is ' +
        'stored in `companyNote`, never in `note`; without one (or blank) the stored companyNote is left as it is. Audited as ' +
        '`company.quote_decline`. ' +
        ACTION_NOTE,
      params: s.QuoteIdParams,
      body: s.NoteBody,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'QUOTE_VERSION_SUPERSEDED', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, body, principal, company, req }) => ({
      data: await quotes.act('decline', actorOf(principal, req), company.companyId, params.id, noteOf(body.note)),
    }),
  );
}
