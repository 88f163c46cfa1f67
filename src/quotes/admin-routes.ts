import { ContractResponse } from '../contracts/schemas';
import { languageOf } from '../http/errors';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { keptAnswer, queryKey, type KeptDeps } from '../http/kept';
import type { QuoteAdmin } from './admin-service';
import { ACTION_NOTE, actorOf } from './routes';
import * as s from './schemas';
import { noteOf, type QuoteService } from './service';

export interface QuoteAdminRouteDeps extends KeptDeps {
  quotes: Pick<QuoteService, 'catalog'>;
  quoteAdmin: QuoteAdmin;
}

/** Internal administration of quotes (spec "Admin: quotes"). Drafts are the company's own: never listed, never found. */
export function quoteAdminRoutes(api: Api, deps: QuoteAdminRouteDeps): void {
  const tag = 'Administration: quotes';
  const { quotes, quoteAdmin, cache } = deps;

  api.define(
    {
      method: 'get',
      path: '/admin/quotes',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'The quote queue',
      description:
        'One entry per chain whose live version is not a draft, grouped by company name A to Z (case-insensitive), then latest ' +
        'activity first (the live version’s updatedAt), offset-paged. `status` matches the live version.',
      query: s.AdminQuoteListQuery,
      response: json(s.AdminQuoteChainList),
      errors: [],
    },
    ({ query }) =>
      keptAnswer(
        cache,
        `admin-quotes:${queryKey(query)}`,
        () => quoteAdmin.list(query),
        () => ['quotes', 'users'],
      ),
  );

  // Before /admin/quotes/:id, or the id route would take "catalog" as an id.
  api.define(
    {
      method: 'get',
      path: '/admin/quotes/catalog',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'The B2B catalog',
      description: 'The same list as GET /b2b/catalog: active packages with a B2B price, cheapest first; names follow Accept-Language.',
      response: json(s.CatalogResponse),
      errors: [],
    },
    async ({ req }) => ({ data: await quotes.catalog(languageOf(req.headers['accept-language'])) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/quotes/:id',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'One quote version',
      description: 'Any version of a chain, with `note` and `companyNote` (read-only here). A draft is QUOTE_NOT_FOUND.',
      params: s.QuoteIdParams,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND'],
    },
    async ({ params }) => ({ data: await quoteAdmin.get(params.id) }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/quotes/:id/start-review',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Start reviewing a quote',
      description: '`submitted` → `under_review`, stamping reviewedBy and reviewedAt; any other state QUOTE_INVALID_STATE. ' + ACTION_NOTE,
      params: s.QuotePathParams,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, principal, req }) => ({ data: await quoteAdmin.startReview(actorOf(principal, req), params.id) }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/quotes/:id/counter',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Counter a quote',
      description:
        'In one transaction: this version (`submitted` or `under_review`) → `countered`, and a new version `under_review` with ' +
        'version + 1, parentId set, the needs carried over, these lines and `note`. Packages are checked as on create. The ' +
        'answer is the new version. QUOTE_COUNTER_FAILED: the write failed, nothing changed. ' +
        ACTION_NOTE,
      params: s.QuoteIdParams,
      body: s.CounterBody,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_PACKAGE_NOT_FOUND', 'QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'QUOTE_COUNTER_FAILED', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, body, principal, req }) => ({
      data: await quoteAdmin.counter(actorOf(principal, req), params.id, body.items, noteOf(body.note)),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/quotes/:id/reject',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Reject a quote',
      description:
        '`submitted` or `under_review` → `rejected`. `note` replaces the stored note (without one, or blank, it is left as it is); ' +
        '`companyNote` is never touched. Audited as `company.quote_reject`. ' +
        ACTION_NOTE,
      params: s.QuotePathParams,
      body: s.NoteBody,
      response: json(s.QuoteDetailResponse),
      errors: ['QUOTE_NOT_FOUND', 'QUOTE_INVALID_STATE', 'SERVICE_UNAVAILABLE'],
    },
    async ({ params, body, principal, req }) => ({ data: await quoteAdmin.reject(actorOf(principal, req), params.id, noteOf(body.note)) }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/quotes/:id/confirm-contract',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Confirm a contract from a quote',
      description:
        'Eligible: a version `accepted`, or company-authored and `submitted` or `under_review` (then it becomes `accepted`); an ' +
        'administrator’s counter the company has not accepted is QUOTE_INVALID_STATE, as are a company without a payment mode, ' +
        'prepaid without lines and flexible without `needs.fundingSar`. The contract takes the company’s payment mode. Prepaid: ' +
        'one line per quoted package at its B2B price now (a package without one: CONTRACT_PACKAGE_PRICE_MISSING with ' +
        '`details.packageId`, nothing written); flexible: totalSar is the declared funding, no lines. One active contract per ' +
        'company: CONTRACT_ALREADY_EXISTS. CONTRACT_CREATE_FAILED: the write failed, nothing changed. ' +
        ACTION_NOTE,
      params: s.QuoteIdParams,
      response: json(ContractResponse, { status: 201 }),
      errors: [
        'CONTRACT_PACKAGE_PRICE_MISSING',
        'QUOTE_NOT_FOUND',
        'QUOTE_INVALID_STATE',
        'CONTRACT_ALREADY_EXISTS',
        'CONTRACT_CREATE_FAILED',
        'SERVICE_UNAVAILABLE',
      ],
    },
    async ({ params, principal, req }) => ({ data: await quoteAdmin.confirmContract(actorOf(principal, req), params.id) }),
  );
}
