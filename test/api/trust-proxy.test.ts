/**
 * TRUST_PROXY reaches Express as the value Express expects, and the real app then believes
 * X-Forwarded-For or not. What the app takes as the client address is read from the per-IP
 * rate limit: two requests claiming two different forwarded clients count against one
 * window (header ignored) or against two (header honoured). supertest connects over loopback.
 */
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { parseTrustProxy } from '../../src/lib/trust-proxy';
import { createTestApp, type TestApp } from '../helpers/app';

const MAX = 1000;

/** Whether the app, configured with TRUST_PROXY=`value`, takes X-Forwarded-For as the client address. */
async function honoursForwardedFor(t: TestApp): Promise<boolean> {
  const remaining = async (client: string) => {
    const res = await request(t.app).get('/openapi.json').set('X-Forwarded-For', client).expect(200);
    return Number(res.headers['x-ratelimit-remaining']);
  };
  const first = await remaining('203.0.113.10');
  const second = await remaining('203.0.113.11');
  expect(first).toBe(MAX - 1);
  // Honoured: a fresh window for the second client. Ignored: both counted as the loopback peer.
  return second === MAX - 1;
}

describe.each([
  ['false', false, false],
  ['true', true, true],
  ['1', 1, true],
  ['0', 0, false],
  ['loopback', ['loopback'], true],
  ['10.0.0.0/8, 192.168.0.1', ['10.0.0.0/8', '192.168.0.1'], false],
  ['127.0.0.1/32,::1', ['127.0.0.1/32', '::1'], true],
  ['uniquelocal,linklocal', ['uniquelocal', 'linklocal'], false],
])('TRUST_PROXY=%s', (setting, parsed, honoured) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: setting, RATE_LIMIT_MAX: String(MAX) } });
  });
  afterAll(() => t.close());

  it(`is read as ${JSON.stringify(parsed)} and X-Forwarded-For is ${honoured ? 'honoured' : 'ignored'}`, async () => {
    expect(t.config.TRUST_PROXY).toEqual(parsed);
    expect(await honoursForwardedFor(t)).toBe(honoured);
  });
});

describe('TRUST_PROXY refused', () => {
  it('defaults to loopback', () => {
    expect(loadConfig({}).TRUST_PROXY).toEqual(['loopback']);
  });

  it.each(['yes', 'nonsense', '10.0.0.0/33', '10.0.0.1,', '-1', '1.5', 'loopback;10.0.0.1'])(
    '%j is a configuration error naming it',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: invalid (IP address|range on address)/);
      expect(parseTrustProxy(value)).toEqual({ error: expect.stringContaining('expected true, false, a hop count') as unknown });
    },
  );
});
