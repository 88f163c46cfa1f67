import { guard } from '../http/guards';
import { binary, json, type Api } from '../http/route';
import { z } from '../openapi/registry';
import type { StoreOrders } from './orders';
import * as s from './schemas';
import type { StoreBrowse } from './service';

export interface StoreRouteDeps {
  browse: StoreBrowse;
  orders: StoreOrders;
}

const GATE = 'Gated by `FEATURE_ESIM_STORE`: while it is off, STORE_DISABLED 422 (after the request is validated).';
const CURRENCY =
  'A currency outside USD, SAR, AED, EUR, GBP, EGP, or one without a rate fetched within FX_MAX_AGE (48 h), is ' +
  'STORE_CURRENCY_UNSUPPORTED; USD never needs a rate. A display price is priceUsd × ratePerUsd, half-up to 2 decimals, ' +
  'computed in integer minor units; `fx` is the rate used (null for USD).';

/** The eSIM store, public and buyer side (esim-store spec, "Public", "Authenticated"). */
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

  api.define(
    {
      method: 'post',
      path: '/store/device-acknowledgements',
      tag,
      guard: guard.session,
      summary: 'Acknowledge a device',
      description:
        'The buyer confirms that the device supports eSIM and is carrier-unlocked (both must be `true`). An order names one ' +
        `of the caller’s own acknowledgements. ${GATE}`,
      body: s.AcknowledgementBody,
      response: json(s.AcknowledgementResponse, { status: 201 }),
      errors: ['STORE_DISABLED'],
    },
    async ({ body, principal }) => ({ data: await deps.orders.acknowledge(principal.user.id, body) }),
  );

  api.define(
    {
      method: 'post',
      path: '/store/orders',
      tag,
      guard: guard.session,
      summary: 'Order an eSIM',
      description:
        'Checks, in order: the gate; the device acknowledgement (unknown or another user’s: VALIDATION_ERROR); the product ' +
        '(STORE_PRODUCT_NOT_FOUND, STORE_PRODUCT_INACTIVE); its provider registered, active, healthy and answering a live ' +
        'health check (STORE_PROVIDER_UNAVAILABLE, fail closed); its payment mode (STORE_PROVIDER_PAYMENT_EXTERNAL); the ' +
        'currency (STORE_CURRENCY_UNSUPPORTED); an identity-check product needs a provider with the async flow ' +
        '(STORE_KYC_REQUIRED); `expectedPrice` equal to the current price in its currency (STORE_PRICE_CHANGED, ' +
        'details.currentPrice); a charge of at least USD 0.50 (STORE_CHARGE_BELOW_MINIMUM). Creates the store order and its ' +
        'order row (same id, `pending_payment`, total in USD) in one transaction and starts its workflow ' +
        '(`store-order:<id>`); pay it with the payment routes (`orderId` = this id). With an `Idempotency-Key` header ' +
        '(optional, ours) a repeat of the same request answers the one order, as it is now; the key with another body is ' +
        'VALIDATION_ERROR. ' +
        GATE,
      headers: s.OrderHeaders,
      body: s.OrderBody,
      response: json(s.StoreOrderResponse, { status: 201 }),
      errors: [
        'STORE_DISABLED',
        'STORE_PRODUCT_NOT_FOUND',
        'STORE_PRODUCT_INACTIVE',
        'STORE_PROVIDER_UNAVAILABLE',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'STORE_CURRENCY_UNSUPPORTED',
        'STORE_KYC_REQUIRED',
        'STORE_PRICE_CHANGED',
        'STORE_CHARGE_BELOW_MINIMUM',
      ],
    },
    async ({ body, headers, principal }) => ({ data: await deps.orders.create(principal.user.id, body, headers['Idempotency-Key']) }),
  );

  api.define(
    {
      method: 'get',
      path: '/store/orders',
      tag,
      guard: guard.session,
      summary: 'My store orders',
      description: 'The caller’s own orders, newest first, keyset-paged (`<createdAt>|<id>`). Available with the gate off.',
      query: s.OrderListQuery,
      response: json(s.StoreOrderList),
      errors: [],
    },
    async ({ query, principal }) => deps.orders.list(principal.user.id, query),
  );

  api.define(
    {
      method: 'get',
      path: '/store/orders/:id',
      tag,
      guard: guard.session,
      summary: 'One of my store orders',
      description: 'Owner only (another user’s order is STORE_ORDER_NOT_FOUND). Available with the gate off.',
      params: s.OrderParams,
      response: json(s.StoreOrderResponse),
      errors: ['STORE_ORDER_NOT_FOUND'],
    },
    async ({ params, principal }) => ({ data: await deps.orders.get(principal.user.id, params.id) }),
  );

  api.define(
    {
      method: 'get',
      path: '/store/orders/:id/esim-qr',
      tag,
      guard: guard.session,
      summary: 'QR code (PNG) of an issued store order',
      description:
        'Owner only. Rendered on demand from the stored activation code, never stored. STORE_ORDER_NOT_FOUND: missing, ' +
        'another user’s, or not issued. Available with the gate off.',
      params: s.OrderRefParams,
      response: binary('image/png', 'PNG image', [
        { name: 'Cache-Control', schema: z.literal('private, no-store'), required: true, description: 'Never cached' },
      ]),
      errors: ['STORE_ORDER_NOT_FOUND'],
    },
    async ({ params, principal, res }) => {
      const png = await deps.orders.esimQr(principal.user.id, params.id);
      res.set('Cache-Control', 'private, no-store');
      return png;
    },
  );
}
