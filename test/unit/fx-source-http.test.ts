/**
 * The HTTP FX source (issue 24: "an HTTP JSON source by URL, tested against a local server"): a
 * USD-based `{ base, rates }` feed, with timeouts, 5xx retries and refusals.
 */
import { createHttpFxSource, type HttpFxSourceOptions } from '../../src/fx/http';
import { createMockFxSource } from '../../src/fx/mock';
import { FxSourceError } from '../../src/fx/source';
import { closedPort, startHttpStub, type HttpStub } from '../helpers/http-stub';

let stub: HttpStub;
beforeEach(async () => {
  stub = await startHttpStub();
});
afterEach(() => stub.close());

const source = (over: Partial<HttpFxSourceOptions> = {}) =>
  createHttpFxSource({ url: `${stub.url}/latest?base=USD`, timeoutMs: 1_000, retries: 2, backoffMs: 5, ...over });

it('reads the display currencies from a USD feed, exactly, ignoring the rest; the source is the host', async () => {
  stub.answer(() => ({
    status: 200,
    body: {
      base: 'USD',
      date: '2026-11-27',
      rates: { SAR: 3.75, AED: '3.6725', EUR: 0.9213456789012, GBP: 0.79, EGP: 48.5, JPY: 150.2, USD: 1 },
    },
  }));
  const fetched = await source({ token: 'fx-token' }).fetchRates();
  expect(fetched).toEqual({
    source: new URL(stub.url).host,
    rates: { AED: '3.6725', EGP: '48.5', EUR: '0.9213456789', GBP: '0.79', SAR: '3.75' },
  });
  expect(stub.requests[0]).toMatchObject({ method: 'GET', path: '/latest?base=USD' });
  expect(stub.requests[0].headers.authorization).toBe('Bearer fx-token');
});

it('drops a rate that is not a positive number, keeps the others', async () => {
  stub.answer(() => ({ status: 200, body: { base: 'usd', rates: { SAR: 3.75, AED: 0, EUR: -1, GBP: 'x', EGP: null } } }));
  expect((await source().fetchRates()).rates).toEqual({ SAR: '3.75' });
});

it.each([
  [{ base: 'EUR', rates: { SAR: 4 } }, 'fx source answered without base USD'],
  [{ base: 'USD' }, 'fx source answered without rates'],
  [{ base: 'USD', rates: { JPY: 150 } }, 'fx source answered no usable rate'],
])('refuses a malformed answer %j, not retryable', async (body, message) => {
  stub.answer(() => ({ status: 200, body }));
  await expect(source().fetchRates()).rejects.toEqual(new FxSourceError(message, false));
  expect(stub.requests).toHaveLength(1);
});

it('retries a 5xx, then answers; after every attempt failed it is a retryable error', async () => {
  stub.answer((_req, i) => (i === 0 ? { status: 503 } : { status: 200, body: { base: 'USD', rates: { SAR: 3.75 } } }));
  expect((await source().fetchRates()).rates).toEqual({ SAR: '3.75' });
  expect(stub.requests).toHaveLength(2);

  stub.answer(() => ({ status: 500 }));
  const err = (await source()
    .fetchRates()
    .catch((e: unknown) => e)) as FxSourceError;
  expect(err).toEqual(new FxSourceError('fx source unavailable: HTTP 500 after 3 attempts', true));
  expect(stub.requests).toHaveLength(5);
});

it('times out a source that does not answer; a 4xx is a refusal; nobody listening is retryable', async () => {
  stub.answer(() => 'hang');
  await expect(source({ timeoutMs: 100, retries: 0 }).fetchRates()).rejects.toEqual(
    new FxSourceError('fx source unavailable: timeout after 1 attempt', true),
  );
  stub.answer(() => ({ status: 403, body: { error: 'bad key' } }));
  await expect(source().fetchRates()).rejects.toEqual(new FxSourceError('fx source refused the request (HTTP 403)', false));
  const dead = createHttpFxSource({ url: `http://127.0.0.1:${await closedPort()}/latest`, timeoutMs: 500, retries: 0 });
  await expect(dead.fetchRates()).rejects.toMatchObject({ retryable: true });
});

it('the mock publishes the contract’s rates with source mock', async () => {
  expect(await createMockFxSource().fetchRates()).toEqual({
    source: 'mock',
    rates: { SAR: '3.75', AED: '3.6725', EUR: '0.92', GBP: '0.79', EGP: '48.5' },
  });
});
