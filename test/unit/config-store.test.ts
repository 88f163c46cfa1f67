/**
 * The store's settings (issue 24): FEATURE_ESIM_STORE on in development, STORE_SYNC_EVERY and
 * FX_FETCH_EVERY (default 1 h), FX_MAX_AGE (48 h), MOCK_STORE_CALLBACK_DELAY (2 s), the HTTP provider's
 * and HTTP FX source's settings; "Production refuses `mock-store` like every other mock".
 */
import { ConfigError, loadConfig } from '../../src/config';
import { productionEnv } from '../helpers/production-env';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration loaded');
}

const named = (message: string) => [...message.matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]);

describe('store configuration', () => {
  it('turns the store gate on in development only, unless set', () => {
    expect(loadConfig({}).FEATURE_ESIM_STORE).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).FEATURE_ESIM_STORE).toBe(false);
    expect(loadConfig(productionEnv()).FEATURE_ESIM_STORE).toBe(false);
    expect(loadConfig({ FEATURE_ESIM_STORE: 'false' }).FEATURE_ESIM_STORE).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', FEATURE_ESIM_STORE: 'true' }).FEATURE_ESIM_STORE).toBe(true);
  });

  it('has the contract’s defaults, in milliseconds', () => {
    expect(loadConfig({})).toMatchObject({
      STORE_SYNC_EVERY: 3_600_000,
      FX_FETCH_EVERY: 3_600_000,
      FX_MAX_AGE: 48 * 3_600_000,
      MOCK_STORE_CALLBACK_DELAY: 2_000,
      STORE_PROVIDER: 'mock',
      FX_SOURCE: 'mock',
      STORE_HEALTH_CHECK_CACHE_SECONDS: 5,
    });
  });

  it('bounds the order health check’s window to 0-60 whole seconds', () => {
    expect(loadConfig({ STORE_HEALTH_CHECK_CACHE_SECONDS: '0' }).STORE_HEALTH_CHECK_CACHE_SECONDS).toBe(0);
    expect(loadConfig({ STORE_HEALTH_CHECK_CACHE_SECONDS: '60' }).STORE_HEALTH_CHECK_CACHE_SECONDS).toBe(60);
    for (const value of ['61', '-1', '2.5', 'soon']) {
      expect(named(refusal({ STORE_HEALTH_CHECK_CACHE_SECONDS: value }))).toEqual(['STORE_HEALTH_CHECK_CACHE_SECONDS']);
    }
  });

  it.each([
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['2d', 172_800_000],
  ])('reads the duration %s', (value, ms) => {
    expect(loadConfig({ FX_FETCH_EVERY: value }).FX_FETCH_EVERY).toBe(ms);
  });

  it.each(['1', 'an hour', '1.5h', '0s', '-1h'])('refuses the duration %j, naming the setting', (value) => {
    expect(named(refusal({ STORE_SYNC_EVERY: value }))).toEqual(['STORE_SYNC_EVERY']);
  });

  it('needs the HTTP provider’s and the HTTP source’s settings, whatever NODE_ENV says', () => {
    expect(named(refusal({ STORE_PROVIDER: 'http' })).sort()).toEqual([
      'STORE_HTTP_CLIENT_ID',
      'STORE_HTTP_CLIENT_SECRET',
      'STORE_HTTP_URL',
    ]);
    expect(named(refusal({ FX_SOURCE: 'http' }))).toEqual(['FX_HTTP_URL']);
  });

  it('refuses the store’s mocks in production while the store is on, naming each', () => {
    const text = refusal({ ...productionEnv(), FEATURE_ESIM_STORE: 'true' });
    expect(named(text).sort()).toEqual(['FX_SOURCE', 'STORE_PROVIDER']);
    expect(text).toMatch(/STORE_PROVIDER: mock is refused in production/);
    expect(text).toMatch(/FX_SOURCE: mock is refused in production/);
    expect(
      loadConfig({
        ...productionEnv(),
        FEATURE_ESIM_STORE: 'true',
        STORE_PROVIDER: 'http',
        STORE_HTTP_URL: 'https://partner.example.com',
        STORE_HTTP_CLIENT_ID: 'id',
        STORE_HTTP_CLIENT_SECRET: 'secret',
        FX_SOURCE: 'http',
        FX_HTTP_URL: 'https://fx.example.com/latest',
      }).FEATURE_ESIM_STORE,
    ).toBe(true);
  });
});
