/**
 * The real store provider plugin (issue 24): "a real HTTP plugin modeled on a public wholesale eSIM
 * partner API (token auth with refresh, package list, synchronous and asynchronous orders, order read,
 * a signed callback), tested against a local HTTP server that the test starts on loopback and that
 * records what it received", including timeouts, 5xx retries and a refused token.
 */
import { createHmac } from 'node:crypto';
import { createHttpStoreProvider, type HttpStoreProviderOptions } from '../../src/store/providers/http';
import { StoreProviderRejection, StoreProviderUnavailable } from '../../src/store/providers/plugin';
import { closedPort, startHttpStub, type HttpStub, type RecordedRequest, type StubAnswer } from '../helpers/http-stub';

const ORDER_ID = '9b2f4c1e-0a3d-4e5f-8a6b-7c8d9e0f1a2b';
const SECRET = 'client-secret-never-logged';

const PACKAGES_PAGE_1 = {
  data: [
    {
      slug: 'saudi-arabia',
      country_code: 'SA',
      title: 'Saudi Arabia',
      operators: [
        {
          title: 'Partner Mobile',
          is_kyc_verify: false,
          countries: [{ country_code: 'SA' }],
          packages: [
            {
              id: 'partner-sa-1gb',
              type: 'sim',
              title: '1 GB - 7 Days',
              amount: 1024,
              day: 7,
              is_unlimited: false,
              price: 4.5,
              net_price: 3.2,
            },
            {
              id: 'partner-sa-unl',
              type: 'sim',
              title: 'Unlimited - 10 Days',
              amount: 0,
              day: 10,
              is_unlimited: true,
              price: 39,
              net_price: 30,
            },
          ],
        },
        {
          title: 'Partner ID',
          is_kyc_verify: true,
          countries: [{ country_code: 'sa' }],
          packages: [
            { id: 'partner-sa-kyc', type: 'sim', title: '10 GB - 30 Days', amount: 10240, day: 30, is_unlimited: false, price: 20 },
          ],
        },
      ],
    },
  ],
  meta: { current_page: 1, last_page: 2 },
};
const PACKAGES_PAGE_2 = {
  data: [
    {
      slug: 'world',
      title: 'Global',
      operators: [
        {
          title: 'Partner Global',
          is_kyc_verify: false,
          countries: [{ country_code: 'AE' }, { country_code: 'SA' }],
          packages: [
            { id: 'partner-global-3gb', type: 'sim', title: 'Global 3 GB', amount: 3072, day: 15, is_unlimited: false, price: 12.99 },
            // Listed again under another country: one product.
            { id: 'partner-sa-1gb', type: 'sim', title: '1 GB - 7 Days', amount: 1024, day: 7, is_unlimited: false, price: 4.5 },
          ],
        },
      ],
    },
  ],
  meta: { current_page: 2, last_page: 2 },
};

const SIM = {
  iccid: '8997000000000000017',
  lpa: 'smdp.partner.example',
  matching_id: 'MATCH-1',
  qrcode: 'LPA:1$smdp.partner.example$MATCH-1',
};

let stub: HttpStub;
let tokens: number;
/** Answers the token call with a new token each time; the rest by `api`. */
function serve(api: (req: RecordedRequest, index: number) => StubAnswer, expiresIn = 3600): void {
  stub.answer((req, index) => {
    if (req.path === '/partner/v2/token') {
      tokens += 1;
      return { status: 200, body: { data: { access_token: `tok-${tokens}`, expires_in: expiresIn, token_type: 'Bearer' } } };
    }
    return api(req, index);
  });
}
const apiRequests = () => stub.requests.filter((r) => r.path !== '/partner/v2/token');

beforeEach(async () => {
  stub = await startHttpStub();
  tokens = 0;
});
afterEach(() => stub.close());

let clock = 0;
const plugin = (over: Partial<HttpStoreProviderOptions> = {}) =>
  createHttpStoreProvider({
    slug: 'partner-store',
    baseUrl: `${stub.url}/partner`,
    clientId: 'client-1',
    clientSecret: SECRET,
    timeoutMs: 1_000,
    retries: 2,
    backoffMs: 5,
    now: () => clock,
    ...over,
  });

describe('token auth with refresh', () => {
  it('takes a token with the client credentials, then calls with it as a bearer', async () => {
    serve(() => ({ status: 200, body: { data: [], meta: { current_page: 1, last_page: 1 } } }));
    await plugin().listProducts();
    const [token, list] = stub.requests;
    expect(token).toMatchObject({
      method: 'POST',
      path: '/partner/v2/token',
      body: { client_id: 'client-1', client_secret: SECRET, grant_type: 'client_credentials' },
    });
    expect(list).toMatchObject({ method: 'GET', path: '/partner/v2/packages?limit=100&page=1' });
    expect(list.headers.authorization).toBe('Bearer tok-1');
  });

  it('reuses the token until a minute before it expires, then renews it', async () => {
    serve(() => ({ status: 200, body: { data: [], meta: { last_page: 1 } } }), 600);
    const p = plugin();
    clock = 0;
    await p.listProducts();
    clock = 530_000;
    await p.listProducts();
    expect(tokens).toBe(1);
    clock = 541_000;
    await p.listProducts();
    expect(tokens).toBe(2);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('renews the token once when a call answers 401, and repeats the call with the new one', async () => {
    serve((req) =>
      req.headers.authorization === 'Bearer tok-1'
        ? { status: 401, body: { message: 'expired' } }
        : { status: 200, body: { data: [], meta: { last_page: 1 } } },
    );
    expect(await plugin().listProducts()).toEqual([]);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('is refused for good when the partner refuses a fresh token too, or refuses our credentials', async () => {
    serve(() => ({ status: 401, body: { message: 'no' } }));
    await expect(plugin().listProducts()).rejects.toEqual(
      new StoreProviderRejection('store provider partner-store refused a fresh token (HTTP 401)'),
    );
    expect(tokens).toBe(2);

    stub.answer(() => ({ status: 401, body: { message: 'invalid client' } }));
    const refused = plugin();
    await expect(refused.listProducts()).rejects.toBeInstanceOf(StoreProviderRejection);
    const health = await refused.health();
    expect(health).toEqual({ ok: false, detail: 'store provider partner-store refused our credentials (HTTP 401)' });
    expect(health.detail).not.toContain(SECRET);
  });
});

describe('package list', () => {
  it('reads every page into products: SKU, countries, data, days, identity check, price in cents; one product per package id', async () => {
    serve((req) => ({ status: 200, body: req.path.endsWith('page=1') ? PACKAGES_PAGE_1 : PACKAGES_PAGE_2 }));
    const products = await plugin().listProducts();
    expect(products).toEqual([
      {
        sku: 'partner-sa-1gb',
        nameEn: '1 GB - 7 Days',
        nameAr: '1 GB - 7 Days',
        countries: ['SA'],
        dataAmountMb: 1024,
        isUnlimited: false,
        validityDays: 7,
        requiresKyc: false,
        priceUsdCents: 450,
      },
      {
        sku: 'partner-sa-unl',
        nameEn: 'Unlimited - 10 Days',
        nameAr: 'Unlimited - 10 Days',
        countries: ['SA'],
        dataAmountMb: 0,
        isUnlimited: true,
        validityDays: 10,
        requiresKyc: false,
        priceUsdCents: 3900,
      },
      {
        sku: 'partner-sa-kyc',
        nameEn: '10 GB - 30 Days',
        nameAr: '10 GB - 30 Days',
        countries: ['sa'],
        dataAmountMb: 10240,
        isUnlimited: false,
        validityDays: 30,
        requiresKyc: true,
        priceUsdCents: 2000,
      },
      {
        sku: 'partner-global-3gb',
        nameEn: 'Global 3 GB',
        nameAr: 'Global 3 GB',
        countries: ['AE', 'SA'],
        dataAmountMb: 3072,
        isUnlimited: false,
        validityDays: 15,
        requiresKyc: false,
        priceUsdCents: 1299,
      },
    ]);
    expect(apiRequests().map((r) => r.path)).toEqual(['/partner/v2/packages?limit=100&page=1', '/partner/v2/packages?limit=100&page=2']);
  });

  it('retries a 5xx and goes on; after every attempt failed it is unavailable (retryable), not refused', async () => {
    serve((_req, index) => (index === 1 ? { status: 503 } : { status: 200, body: { data: [], meta: { last_page: 1 } } }));
    expect(await plugin().listProducts()).toEqual([]);
    expect(apiRequests()).toHaveLength(2);

    serve(() => ({ status: 502 }));
    const before = apiRequests().length;
    const err = (await plugin()
      .listProducts()
      .catch((e: unknown) => e)) as StoreProviderUnavailable;
    expect(err).toBeInstanceOf(StoreProviderUnavailable);
    expect(err.message).toBe('store provider partner-store unavailable: HTTP 502 after 3 attempts');
    expect(apiRequests().length - before).toBe(3);
  });

  it('times out a partner that does not answer, each attempt within the timeout', async () => {
    serve(() => 'hang');
    const err = (await plugin({ timeoutMs: 100, retries: 1 })
      .listProducts()
      .catch((e: unknown) => e)) as StoreProviderUnavailable;
    expect(err).toBeInstanceOf(StoreProviderUnavailable);
    expect(err.kind).toBe('timeout');
    expect(apiRequests()).toHaveLength(2);
  });

  it('is unavailable when nobody listens, and unhealthy', async () => {
    const dead = plugin({ baseUrl: `http://127.0.0.1:${await closedPort()}`, retries: 0 });
    await expect(dead.listProducts()).rejects.toBeInstanceOf(StoreProviderUnavailable);
    expect(await dead.health()).toMatchObject({ ok: false });
  });
});

describe('orders', () => {
  it('places a synchronous order with our order id as reference and Idempotency-Key, and reads the issued profile', async () => {
    serve(() => ({ status: 200, body: { data: { id: 77, code: 'P-1', sims: [SIM] } } }));
    expect(await plugin().placeOrder(ORDER_ID, 'partner-sa-1gb')).toEqual({
      status: 'issued',
      profile: { iccid: SIM.iccid, smdpAddress: SIM.lpa, matchingId: SIM.matching_id, activationCodeRaw: SIM.qrcode },
    });
    const [order] = apiRequests();
    expect(order).toMatchObject({
      method: 'POST',
      path: '/partner/v2/orders',
      body: { package_id: 'partner-sa-1gb', quantity: 1, type: 'sim', description: ORDER_ID },
    });
    expect(order.headers['idempotency-key']).toBe(ORDER_ID);
  });

  it('takes a 202 as pending (completed later by callback), a 4xx as a refusal with its reason, and retries a 5xx with the same key', async () => {
    serve(() => ({ status: 202, body: { data: { request_id: 'req-1' } } }));
    expect(await plugin().placeOrder(ORDER_ID, 'partner-sa-kyc')).toEqual({ status: 'pending', reason: 'delayed' });

    serve(() => ({ status: 422, body: { message: 'package sold out' } }));
    await expect(plugin().placeOrder(ORDER_ID, 'partner-sa-1gb')).rejects.toEqual(new StoreProviderRejection('package sold out'));

    serve((_req, index) => (index % 2 === 1 ? { status: 500 } : { status: 200, body: { data: { sims: [SIM] } } }));
    const before = apiRequests().length;
    expect(await plugin().placeOrder(ORDER_ID, 'partner-sa-1gb')).toMatchObject({ status: 'issued' });
    const retried = apiRequests().slice(before);
    expect(retried.map((r) => r.headers['idempotency-key'])).toEqual([ORDER_ID, ORDER_ID]);
  });

  it('reads an order by our reference: issued, pending, failed or not found', async () => {
    const answers = [
      { data: [{ description: ORDER_ID, status: 'completed', sims: [SIM] }] },
      { data: [{ description: ORDER_ID, status: 'pending', sims: [] }] },
      { data: [{ description: ORDER_ID, status: 'failed' }] },
      { data: [] },
    ];
    serve((_req, index) => ({ status: 200, body: answers[(index - 1) % 4] }));
    const p = plugin();
    expect(await p.getOrder(ORDER_ID)).toMatchObject({ status: 'issued', profile: { iccid: SIM.iccid } });
    expect(await p.getOrder(ORDER_ID)).toEqual({ status: 'pending' });
    expect(await p.getOrder(ORDER_ID)).toEqual({ status: 'failed', reason: 'store provider partner-store: order failed' });
    expect(await p.getOrder(ORDER_ID)).toEqual({ status: 'not_found' });
    expect(apiRequests()[0].path).toBe(`/partner/v2/orders?filter[description]=${ORDER_ID}`);
  });
});

describe('signed callback', () => {
  const raw = Buffer.from(JSON.stringify({ request_id: 'req-1', data: { description: ORDER_ID, status: 'completed', sims: [SIM] } }));
  const signature = createHmac('sha512', SECRET).update(raw).digest('hex');

  it('is told apart by its partner-signature header: the hex HMAC-SHA512 of the raw body with our secret', () => {
    const { callbacks } = plugin();
    expect(callbacks.header).toBe('partner-signature');
    expect(callbacks.verify(raw, signature)).toBe(true);
    expect(callbacks.verify(raw, signature.toUpperCase())).toBe(true);
    expect(callbacks.verify(raw, createHmac('sha512', 'other').update(raw).digest('hex'))).toBe(false);
    expect(callbacks.verify(Buffer.from(raw.toString().replace(ORDER_ID, 'x')), signature)).toBe(false);
    expect(callbacks.verify(raw, signature.slice(2))).toBe(false);
    expect(callbacks.verify(raw, '')).toBe(false);
  });

  it('names our order (description, top level or under data) with the partner outcome as a hint, nothing else', () => {
    const { callbacks } = plugin();
    const of = (body: unknown) => callbacks.orderOf(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
    expect(of(raw.toString())).toEqual({ orderId: ORDER_ID, status: 'completed' });
    expect(of({ description: ORDER_ID, status: 'pending' })).toEqual({ orderId: ORDER_ID, status: 'completed' });
    expect(of({ data: { description: ORDER_ID, status: 'cancelled' } })).toEqual({ orderId: ORDER_ID, status: 'failed' });
    for (const body of ['{nope', 'null', '42', { data: {} }, { description: '' }, { description: 'x'.repeat(129) }]) {
      expect(of(body)).toBeNull();
    }
  });
});

describe('health', () => {
  it('is ok when a fresh token and the package list answer', async () => {
    serve(() => ({ status: 200, body: { data: [], meta: { last_page: 1 } } }));
    expect(await plugin().health()).toEqual({ ok: true, detail: 'store provider partner-store: token and package list answered' });
    expect(apiRequests()[0].path).toBe('/partner/v2/packages?limit=1&page=1');
  });

  it('proves the credentials with a fresh token by default (toggle, sync), and reuses a valid one when asked (orders)', async () => {
    serve(() => ({ status: 200, body: { data: [], meta: { last_page: 1 } } }));
    const p = plugin();
    await p.health();
    await p.health();
    expect(tokens).toBe(2);
    await p.health({ freshToken: false });
    await p.health({ freshToken: false });
    expect(tokens).toBe(2);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2', 'Bearer tok-2']);
  });

  it('without a fresh token, still finds revoked credentials: a refused token is renewed once, and the renewal refused', async () => {
    serve(() => ({ status: 200, body: { data: [], meta: { last_page: 1 } } }));
    const p = plugin();
    expect(await p.health({ freshToken: false })).toMatchObject({ ok: true });
    stub.answer(() => ({ status: 401, body: { message: 'revoked' } }));
    expect(await p.health({ freshToken: false })).toEqual({
      ok: false,
      detail: 'store provider partner-store refused our credentials (HTTP 401)',
    });
  });
});
