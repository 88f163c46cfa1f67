/**
 * The real store partner behind the API (issue 33): the HTTP plugin (src/store/providers/http.ts) is
 * registered under the seeded `mock-store` row and talks to a loopback stub that counts every call.
 * Item 1: POST /store/orders's live health check is shared per provider for
 * STORE_HEALTH_CHECK_CACHE_SECONDS (default 5), so a signed-in caller cannot multiply partner calls.
 */
import request from 'supertest';
import { createHttpStoreProvider } from '../../src/store/providers/http';
import { StoreProviderRegistry } from '../../src/store/providers/plugin';
import type { StoreOrderRuns } from '../../src/store/runs';
import { bearer, signUp, type TestApp } from '../helpers/app';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';
import { typed } from '../helpers/responses';
import { createStoreApp, productId } from '../helpers/store';

const SECRET = 'partner-secret-never-logged';
const noRuns: StoreOrderRuns = { start: () => Promise.resolve() };

let stub: HttpStub;
let t: TestApp;
let buyer: { token: string; userId: string };
let ackId: string;
/** Whether the partner's package list answers (the health check reads its first page). */
let partnerUp = true;

beforeAll(async () => {
  stub = await startHttpStub();
  stub.answer((req, index) => {
    if (req.path === '/partner/v2/token') return { status: 200, body: { data: { access_token: `tok-${index}`, expires_in: 3600 } } };
    return partnerUp ? { status: 200, body: { data: [], meta: { last_page: 1 } } } : { status: 503 };
  });
  const partner = createHttpStoreProvider({
    slug: 'mock-store',
    baseUrl: `${stub.url}/partner`,
    clientId: 'client-1',
    clientSecret: SECRET,
    timeoutMs: 2_000,
    retries: 0,
  });
  t = await createStoreApp({ deps: { storeOrderRuns: noRuns, storeProviders: new StoreProviderRegistry([partner]) } });
  buyer = await signUp(t);
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(buyer.token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  ackId = typed<{ data: { id: string } }>(ack).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

type Created = { data: { id: string; status: string } };
const order = async (sku = 'MOCK-SYNC-SA-5GB') =>
  typed<Created>(
    await request(t.app)
      .post('/store/orders')
      .set(bearer(buyer.token))
      .send({ productId: productId(sku), deviceAcknowledgementId: ackId }),
  );
const calls = (path: string) => stub.requests.filter((r) => r.path.startsWith(path)).length;
const tokenCalls = () => calls('/partner/v2/token');
const packageCalls = () => calls('/partner/v2/packages');

describe('POST /store/orders: one live health check per provider and window', () => {
  it('answers parallel and back-to-back orders with one partner check for 5 s, then checks again with the same token', async () => {
    const [tokensBefore, packagesBefore] = [tokenCalls(), packageCalls()];
    const parallel = await Promise.all(Array.from({ length: 8 }, () => order()));
    expect(parallel.map((r) => r.status)).toEqual(Array(8).fill(201));
    for (let i = 0; i < 3; i += 1) expect((await order()).status).toBe(201);
    t.clock.advance(4_900);
    expect((await order()).status).toBe(201);
    expect([tokenCalls() - tokensBefore, packageCalls() - packagesBefore]).toEqual([1, 1]);

    t.clock.advance(100);
    expect((await order()).status).toBe(201);
    // The window is over: one more package call, with the token the first check took (still valid).
    expect([tokenCalls() - tokensBefore, packageCalls() - packagesBefore]).toEqual([1, 2]);
    expect(new Set(stub.requests.filter((r) => r.path.startsWith('/partner/v2/packages')).map((r) => r.headers.authorization)).size).toBe(
      1,
    );
  });

  it('keeps a failed check for a second only: orders meanwhile are refused without a partner call, then it checks again', async () => {
    t.clock.advance(10_000);
    partnerUp = false;
    const before = packageCalls();
    const refused = await Promise.all(Array.from({ length: 4 }, () => order()));
    expect(refused.map((r) => [r.status, (r.body as unknown as { error: { code: string } }).error.code])).toEqual(
      Array(4).fill([422, 'STORE_PROVIDER_UNAVAILABLE']),
    );
    expect(packageCalls() - before).toBe(1);

    partnerUp = true;
    t.clock.advance(999);
    expect((await order()).status).toBe(422);
    expect(packageCalls() - before).toBe(1);
    t.clock.advance(1);
    expect((await order()).status).toBe(201);
    expect(packageCalls() - before).toBe(2);
  });
});
