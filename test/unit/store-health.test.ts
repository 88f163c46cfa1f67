/**
 * Issue 33, item 1: POST /store/orders's live health check is shared per provider (src/store/health.ts):
 * concurrent checks share the one in flight, a healthy answer serves STORE_HEALTH_CHECK_CACHE_SECONDS,
 * a failure at most FAILURE_KEPT_MS, so a signed-in caller cannot multiply the partner's calls.
 */
import { FAILURE_KEPT_MS, sharedHealthChecks } from '../../src/store/health';
import type { ProviderHealth, StoreProviderPlugin } from '../../src/store/providers/plugin';

/** A plugin whose health checks the test answers by hand; records the options of each. */
function manualPlugin(slug: string) {
  const pending: Array<(health: ProviderHealth) => void> = [];
  const options: unknown[] = [];
  const plugin = {
    slug,
    health(opts?: unknown) {
      options.push(opts);
      return new Promise<ProviderHealth>((resolve) => pending.push(resolve));
    },
  } as unknown as StoreProviderPlugin;
  const answer = (health: ProviderHealth) => pending.splice(0).forEach((resolve) => resolve(health));
  return { plugin, options, answer, calls: () => options.length };
}

const OK: ProviderHealth = { ok: true, detail: 'up' };
const DOWN: ProviderHealth = { ok: false, detail: 'down' };
const settled = () => new Promise((resolve) => setImmediate(resolve));

let now = 0;
const shared = (windowMs = 5_000) => sharedHealthChecks({ windowMs, now: () => now });
beforeEach(() => {
  now = 1_000_000;
});

it('shares the check in flight among concurrent callers, and its answer for the window', async () => {
  const p = manualPlugin('partner');
  const check = shared();
  const first = [check(p.plugin, 'partner'), check(p.plugin, 'partner'), check(p.plugin, 'partner')];
  expect(p.calls()).toBe(1);
  p.answer(OK);
  expect(await Promise.all(first)).toEqual([OK, OK, OK]);

  now += 4_999;
  expect(await check(p.plugin, 'partner')).toEqual(OK);
  expect(p.calls()).toBe(1);

  now += 1;
  const again = check(p.plugin, 'partner');
  expect(p.calls()).toBe(2);
  p.answer(OK);
  expect(await again).toEqual(OK);
});

it('keeps a failure for FAILURE_KEPT_MS only (a blip refuses orders for a second, not the whole window)', async () => {
  const p = manualPlugin('partner');
  const check = shared();
  const failed = check(p.plugin, 'partner');
  p.answer(DOWN);
  expect(await failed).toEqual(DOWN);
  expect(await check(p.plugin, 'partner')).toEqual(DOWN);
  expect(p.calls()).toBe(1);

  now += FAILURE_KEPT_MS;
  const retried = check(p.plugin, 'partner');
  expect(p.calls()).toBe(2);
  p.answer(OK);
  expect(await retried).toEqual(OK);
});

it('checks each provider apart, without forcing a fresh partner token', async () => {
  const a = manualPlugin('a');
  const b = manualPlugin('b');
  const check = shared();
  const both = Promise.all([check(a.plugin, 'a'), check(b.plugin, 'b')]);
  a.answer(OK);
  b.answer(DOWN);
  expect(await both).toEqual([OK, DOWN]);
  expect([a.options, b.options]).toEqual([[{ freshToken: false }], [{ freshToken: false }]]);
});

it('with a window of 0 shares only the check in flight', async () => {
  const p = manualPlugin('partner');
  const check = shared(0);
  const together = [check(p.plugin, 'partner'), check(p.plugin, 'partner')];
  p.answer(OK);
  await Promise.all(together);
  await settled();
  expect(p.calls()).toBe(1);
  const next = check(p.plugin, 'partner');
  expect(p.calls()).toBe(2);
  p.answer(OK);
  await next;
});

it('answers a slug without a plugin as unhealthy', async () => {
  const check = shared();
  expect(await check(undefined, 'gone')).toMatchObject({ ok: false });
});
