import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import * as s from './schemas';
import type { StoreBrowse } from './service';

export interface StoreRouteDeps {
  browse: StoreBrowse;
}

const GATE = 'Gated by `FEATURE_ESIM_STORE`: while it is off, STORE_DISABLED 422 (after the request is validated).';
const CURRENCY =
  'A currency outside USD, SAR, AED, EUR, GBP, EGP, or one without a rate fetched within FX_MAX_AGE (48 h), is ' +
  'STORE_CURRENCY_UNSUPPORTED; USD never needs a rate. A display price is priceUsd × ratePerUsd, half-up to 2 decimals, ' +
  'computed in integer minor units; `fx` is the rate used (null for USD).';

/** The eSIM store, public side (esim-store spec, "Public"). Ordering comes with the next part. */
export function storeRoutes(api: Api, deps: StoreRouteDeps): void {
  const tag = 'eSIM store';

  api.define(
    {
      method: 'get',
      path: '/store/status',
      tag,
      guard: guard.public,
      summary: 'Store status',
      description:
        'Always available, the gate off included: whether the store is on, the currencies prices can be shown in (USD and ' +
        'every currency with a rate fetched within FX_MAX_AGE) and the newest rate’s fetchedAt (null before the first fetch).',
      response: json(s.StoreStatusResponse),
      errors: [],
    },
    async () => ({ data: await deps.browse.status() }),
  );

  api.define(
    {
      method: 'get',
      path: '/store/products',
      tag,
      guard: guard.public,
      summary: 'Browse the store',
      description:
        'Active products of active, healthy providers we charge for (paymentMode internal), cheapest first (priceUsd, then ' +
        'id), keyset-paged by `cursor` (`<priceUsdMinor>|<id>`); `country` keeps the products that cover it. ' +
        `${CURRENCY} ${GATE}`,
      query: s.ProductListQuery,
      response: json(s.ProductList),
      errors: ['STORE_DISABLED', 'STORE_CURRENCY_UNSUPPORTED'],
    },
    async ({ query }) => deps.browse.list(query),
  );

  api.define(
    {
      method: 'get',
      path: '/store/products/:id',
      tag,
      guard: guard.public,
      summary: 'One product',
      description:
        'An active product, whatever its provider’s state (ordering answers for the provider); an inactive or unknown one is ' +
        `STORE_PRODUCT_NOT_FOUND. ${CURRENCY} ${GATE}`,
      params: s.ProductParams,
      query: s.ProductQuery,
      response: json(s.ProductResponse),
      errors: ['STORE_DISABLED', 'STORE_PRODUCT_NOT_FOUND', 'STORE_CURRENCY_UNSUPPORTED'],
    },
    async ({ params, query }) => ({ data: await deps.browse.get(params.id.toLowerCase(), query.currency) }),
  );
}
