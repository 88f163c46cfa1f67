/** The national identity adapter against a local HTTP stub that records what it received. */
import { createLogger } from '../../src/http/logger';
import { createHttpIdentityProvider, type HttpIdentityOptions } from '../../src/identity/http';
import { IdentityInitiationError, IdentityProviderUnavailable } from '../../src/identity/provider';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';

const ID_NUMBER = '1098765430';
const REFERENCE = '0f3c2a4e-9b1d-4c5e-8f70-123456789abc';
const start = { idNumber: ID_NUMBER, identityType: 'citizen' as const, reference: REFERENCE };

describe('identity verification over HTTP', () => {
  let stub: HttpStub;
  let lines: string[];
  beforeEach(async () => {
    stub = await startHttpStub();
    lines = [];
  });
  afterEach(() => {
    // Whatever happened, the id number never reached a log line.
    expect(lines.join('')).not.toContain(ID_NUMBER);
    return stub.close();
  });

  const provider = (over: Partial<HttpIdentityOptions> = {}) =>
    createHttpIdentityProvider({
      url: `${stub.url}/nid/v1`,
      token: 'id-token-1',
      timeoutMs: 10_000, // a loaded box may be slow to answer the first request; timeout tests set their own
      retries: 2,
      backoffMs: 5,
      logger: createLogger('debug', { write: (line: string) => void lines.push(line) }),
      ...over,
    });

  it('starts a verification with the documented request and returns the transaction and code', async () => {
    stub.answer(() => ({ status: 201, body: { transactionId: 'tx-77', randomCode: 42 } }));
    expect(await provider().initiate(start)).toEqual({ transId: 'tx-77', randomCode: '42' });
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/nid/v1/verifications', body: start });
    expect(req.headers.authorization).toBe('Bearer id-token-1');
    expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.path).not.toContain(ID_NUMBER);
  });

  it('maps a 4xx at initiation to IdentityInitiationError without retrying', async () => {
    stub.answer(() => ({ status: 422, body: { error: { message: `id ${ID_NUMBER} unknown` } } }));
    const err = (await provider()
      .initiate(start)
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityInitiationError);
    expect(err.message).toBe('identity provider refused the verification (HTTP 422)');
    expect(stub.requests).toHaveLength(1);
  });

  it('retries a 5xx with the same idempotency key, and a new initiation gets a new key', async () => {
    stub.answer((_req, i) => (i === 0 ? { status: 503 } : { status: 200, body: { transactionId: `tx-${i}`, randomCode: '17' } }));
    expect(await provider().initiate(start)).toEqual({ transId: 'tx-1', randomCode: '17' });
    const [first, retry] = stub.requests;
    expect(retry.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(retry.body).toEqual(first.body);
    // A restarted verification of the same activation (same reference) is a new transaction.
    await provider().initiate(start);
    expect(stub.requests[2].headers['idempotency-key']).not.toBe(first.headers['idempotency-key']);
  });

  // Issue 20: an initiation retried after a lost worker must not start a second transaction.
  it("sends the caller's idempotency key when it gives one (the same on every attempt at one initiation)", async () => {
    stub.answer(() => ({ status: 200, body: { transactionId: 'tx-k', randomCode: '17' } }));
    const key = 'activation:a1:run-1:1';
    await provider().initiate({ ...start, idempotencyKey: key });
    await provider().initiate({ ...start, idempotencyKey: key });
    expect(stub.requests.map((r) => r.headers['idempotency-key'])).toEqual([key, key]);
  });

  it('gives up after IDENTITY_HTTP_RETRIES with a retryable error (the activity retries it)', async () => {
    stub.answer(() => ({ status: 500 }));
    const err = (await provider({ retries: 1 })
      .initiate(start)
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityProviderUnavailable);
    expect(err.message).toBe('identity provider unavailable: HTTP 500 after 2 attempts');
    expect(stub.requests).toHaveLength(2);
  });

  it('times out each attempt after IDENTITY_HTTP_TIMEOUT_MS', async () => {
    stub.answer(() => 'hang');
    const started = Date.now();
    // Long enough that a stalled event loop never aborts an attempt before the stub has seen it.
    const err = (await provider({ timeoutMs: 500, retries: 1 })
      .initiate(start)
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityProviderUnavailable);
    expect(err.message).toBe('identity provider unavailable: timeout after 2 attempts');
    expect(stub.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('treats a 2xx without a transaction as a provider failure', async () => {
    stub.answer(() => ({ status: 200, body: { ok: true } }));
    await expect(provider().initiate(start)).rejects.toBeInstanceOf(IdentityProviderUnavailable);
  });

  it('polls the status of a transaction and maps each answer', async () => {
    for (const status of ['waiting', 'completed', 'rejected', 'expired', 'error'] as const) {
      stub.answer(() => ({ status: 200, body: { status } }));
      expect(await provider().status('tx/77')).toBe(status);
    }
    expect(stub.requests.every((r) => r.method === 'GET' && r.path === '/nid/v1/verifications/tx%2F77')).toBe(true);
    expect(stub.requests[0].headers.authorization).toBe('Bearer id-token-1');
  });

  it('ends a transaction the provider refuses to report (404) in error, without retrying', async () => {
    stub.answer(() => ({ status: 404 }));
    expect(await provider().status('tx-gone')).toBe('error');
    expect(stub.requests).toHaveLength(1);
  });

  it('keeps a transaction waiting while the provider is down, after retrying', async () => {
    stub.answer(() => ({ status: 502 }));
    expect(await provider().status('tx-1')).toBe('waiting');
    expect(stub.requests).toHaveLength(3);
    stub.answer(() => ({ status: 200, body: { status: 'approved-ish' } }));
    expect(await provider().status('tx-1')).toBe('waiting');
  });
});
