/** createProviders picks the store's providers and FX source from configuration (mock by default; the HTTP ones behind a local stub). */
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/logger';
import { createProviders } from '../../src/provider-registry';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';

const logger = createLogger('silent');
let stub: HttpStub;
beforeAll(async () => {
  stub = await startHttpStub((req) => {
    if (req.path === '/partner/v2/token') return { status: 200, body: { data: { access_token: 't', expires_in: 3600 } } };
    if (req.path.startsWith('/partner/v2/packages')) return { status: 200, body: { data: [], meta: { last_page: 1 } } };
    if (req.path === '/fx') return { status: 200, body: { base: 'USD', rates: { SAR: 3.75 } } };
    return { status: 404 };
  });
});
afterAll(() => stub.close());

it('defaults to the three mock providers and the mock FX source; MOCK_STORE_UNHEALTHY fails their health', async () => {
  const { store, fx } = createProviders(loadConfig({ NODE_ENV: 'test', MOCK_STORE_UNHEALTHY: 'mock-store-lite, nope' }), logger);
  expect(store.slugs().sort()).toEqual(['mock-store', 'mock-store-external', 'mock-store-lite']);
  expect((await store.get('mock-store')!.health()).ok).toBe(true);
  expect((await store.get('mock-store-lite')!.health()).ok).toBe(false);
  expect(fx.name).toBe('mock');
});

it('switches to the HTTP partner (one provider under STORE_HTTP_SLUG) and the HTTP FX source by configuration', async () => {
  const { store, fx } = createProviders(
    loadConfig({
      NODE_ENV: 'test',
      STORE_PROVIDER: 'http',
      STORE_HTTP_URL: `${stub.url}/partner`,
      STORE_HTTP_CLIENT_ID: 'id',
      STORE_HTTP_CLIENT_SECRET: 'secret',
      STORE_HTTP_SLUG: 'airy',
      FX_SOURCE: 'http',
      FX_HTTP_URL: `${stub.url}/fx`,
    }),
    logger,
  );
  expect(store.slugs()).toEqual(['airy']);
  expect(await store.get('airy')!.health()).toMatchObject({ ok: true });
  expect(await fx.fetchRates()).toEqual({ source: new URL(stub.url).host, rates: { SAR: '3.75' } });
});
