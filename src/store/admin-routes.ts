import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { offsetPageBody } from '../http/pagination';
import { json, type Api } from '../http/route';
import type { Principal } from '../auth/sessions';
import type { Request } from 'express';
import type { StoreActor, StoreAdmin } from './admin-service';
import type { StoreOrders } from './orders';
import * as s from './schemas';

export interface StoreAdminRouteDeps {
  admin: StoreAdmin;
  orders: StoreOrders;
}

const actorOf = (principal: Principal, req: Request): StoreActor => ({ userId: principal.user.id, ...auditRequestContext(req) });

const NO_GATE = 'Available whatever the store gate says, so staff can prepare the catalog before opening the store.';

/** The store's administration (esim-store spec, "Admin"): role first, then the `store` area (View reads, Manage writes). */
export function storeAdminRoutes(api: Api, deps: StoreAdminRouteDeps): void {
  const tag = 'Administration: eSIM store';
  const { admin } = deps;

  api.define(
    {
      method: 'get',
      path: '/admin/store/providers',
      tag,
      guard: guard.staff('store', 'view'),
      summary: 'The eSIM store providers',
      description: `Every provider row (operators of kind esim_store), by slug, with its recorded health. ${NO_GATE}`,
      response: json(s.StoreProviderList),
      errors: [],
    },
    async () => ({ data: await admin.providers() }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/store/providers/:id/toggle',
      tag,
      guard: guard.staff('store', 'manage'),
      summary: 'Turn a provider on or off',
      description:
        'Turning on runs the provider’s health check first and refuses when it fails (STORE_PROVIDER_UNAVAILABLE; no plugin ' +
        'registered for its slug, an error or no answer within 30 s count as failures); the check is recorded either way. ' +
        'Off, its products leave the store at once. Audited as `store.provider_toggled`. STORE_PROVIDER_NOT_FOUND: no eSIM ' +
        'store provider has that id (a telecom operator’s id included).',
      params: s.ProviderParams,
      body: s.ToggleBody,
      response: json(s.StoreProviderResponse),
      errors: ['STORE_PROVIDER_NOT_FOUND', 'STORE_PROVIDER_UNAVAILABLE'],
    },
    async ({ params, body, principal, req }) => ({
      data: await admin.toggle(actorOf(principal, req), params.id.toLowerCase(), body.isActive),
    }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/store/products',
      tag,
      guard: guard.staff('store', 'view'),
      summary: 'The store’s products',
      description:
        'Every product, any state and any provider, by provider slug then SKU, offset-paged; prices in USD. `search` matches ' +
        `a substring of the SKU or either name, any case. ${NO_GATE}`,
      query: s.AdminProductListQuery,
      response: json(s.AdminProductList),
      errors: [],
    },
    async ({ query }) => {
      const { products, total } = await admin.products(query);
      return offsetPageBody('products', products, total, query);
    },
  );

  api.define(
    {
      method: 'patch',
      path: '/admin/store/products/:id',
      tag,
      guard: guard.staff('store', 'manage'),
      summary: 'Edit a product',
      description:
        'Any of isActive, nameEn, nameAr (1-255, trimmed). A rename is kept across syncs; a product turned off stays off ' +
        'across syncs until turned on again (a product its provider no longer lists stays inactive after the next sync). ' +
        'Audited as `store.product_updated` with before and after.',
      params: s.ProductParams,
      body: s.ProductPatchBody,
      response: json(s.AdminProductResponse),
      errors: ['STORE_PRODUCT_NOT_FOUND'],
    },
    async ({ params, body, principal, req }) => ({
      data: await admin.patchProduct(actorOf(principal, req), params.id.toLowerCase(), body),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/store/catalog/sync',
      tag,
      guard: guard.staff('store', 'manage'),
      summary: 'Sync the catalog now',
      description:
        'Starts the catalog sync workflow of one provider (`store-sync:<providerId>`, inactive providers too) or, with no ' +
        '`providerId` (body `{}`), of every active provider (`store-sync:all`, one `store-sync:<providerId>` run each). One ' +
        'sync per provider at a time: a sync already running is returned, not doubled. The same sync runs on the ' +
        '`store-catalog-sync` Schedule (STORE_SYNC_EVERY). STORE_SYNC_UNAVAILABLE: Temporal did not take the start in time.',
      body: s.SyncBody,
      response: json(s.SyncResponse, { status: 202 }),
      errors: ['STORE_PROVIDER_NOT_FOUND', 'STORE_SYNC_UNAVAILABLE'],
    },
    async ({ body }) => ({ data: await admin.sync(body.providerId?.toLowerCase()) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/store/orders',
      tag,
      guard: guard.staff('store', 'view'),
      summary: 'Store orders',
      description: `Every store order, newest first, offset-paged, with its buyer and provider; never the activation code. ${NO_GATE}`,
      query: s.AdminOrderListQuery,
      response: json(s.AdminOrderList),
      errors: [],
    },
    async ({ query }) => {
      const { orders, total } = await deps.orders.adminList(query);
      return offsetPageBody('orders', orders, total, query);
    },
  );

  api.define(
    {
      method: 'post',
      path: '/admin/store/orders/:id/requeue',
      tag,
      guard: guard.staff('store', 'manage'),
      summary: 'Requeue a paid order that has no profile',
      description:
        'Only a paid order with no issued profile: `paid`, `provisioning`, `awaiting_provider` past its delivery deadline, or ' +
        '`failed` (else STORE_ORDER_NOT_REQUEUEABLE). The order moves to `provisioning`, audited as `store.order_requeued`; ' +
        'its run places the order again (idempotent at the provider: the order id is the reference) with a new delivery ' +
        'deadline, a finished order in a new run. The run is told after the answer, as soon as Temporal takes it: ' +
        'STORE_REQUEUE_UNAVAILABLE is not produced.',
      params: s.OrderRefParams,
      response: json(s.AdminOrderResponse, { status: 202 }),
      errors: ['STORE_ORDER_NOT_FOUND', 'STORE_ORDER_NOT_REQUEUEABLE'],
    },
    async ({ params, principal, req }) => ({ data: await deps.orders.requeue(actorOf(principal, req), params.id) }),
  );
}
