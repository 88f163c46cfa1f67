/** The HTTP operator plugin against a local HTTP stub that records what it received. */
import { askOperator } from '../../src/activations/serial';
import { AppError } from '../../src/http/errors';
import { parseOperatorEndpoints } from '../../src/lib/operator-endpoints';
import { createHttpOperator, type HttpOperatorOptions } from '../../src/operators/http';
import { OperatorRejection, OperatorTimeout, OperatorUnavailable } from '../../src/operators/plugin';
import { closedPort, startHttpStub, type HttpStub } from '../helpers/http-stub';

const ACTIVATION_ID = '3a1f6c7e-2b4d-4e8f-9a0b-1c2d3e4f5a6b';
const ICCID = '8996600000000000009';

describe('OPERATOR_HTTP_ENDPOINTS', () => {
  it('reads slugs, bases and the eSIM flag', () => {
    expect(parseOperatorEndpoints(' stc:esim=https://ops.stc.example/api , zain=http://127.0.0.1:9000 ')).toEqual([
      { slug: 'stc', baseUrl: 'https://ops.stc.example/api', supportsEsim: true },
      { slug: 'zain', baseUrl: 'http://127.0.0.1:9000', supportsEsim: false },
    ]);
  });

  it.each([
    ['', 'lists no operator'],
    ['stc', 'expected slug=https://base'],
    ['STC=https://x.example', 'expected slug=https://base'],
    ['stc:sim=https://x.example', 'expected slug=https://base'],
    ['stc=ftp://x.example', 'the base must be an http(s) URL'],
    ['stc=not a url', 'the base must be an http(s) URL'],
    ['stc=https://a.example,stc:esim=https://b.example', '"stc" is listed twice'],
  ])('refuses %j', (value, message) => {
    expect(() => parseOperatorEndpoints(value)).toThrow(message);
  });
});

describe('operator over HTTP', () => {
  let stub: HttpStub;
  beforeEach(async () => {
    stub = await startHttpStub();
  });
  afterEach(() => stub.close());

  const operator = (over: Partial<HttpOperatorOptions> = {}) =>
    createHttpOperator({ slug: 'stc', baseUrl: `${stub.url}/ops`, supportsEsim: true, token: 'op-token-1', timeoutMs: 10_000, ...over });

  it('takes its slug and eSIM support from the configuration', () => {
    expect(operator()).toMatchObject({ slug: 'stc', supportsEsim: true });
    expect(operator({ slug: 'zain', supportsEsim: false })).toMatchObject({ slug: 'zain', supportsEsim: false });
  });

  it('validates a serial with the documented request and maps both verdicts', async () => {
    stub.answer((_req, i) =>
      i === 0 ? { status: 200, body: { valid: true } } : { status: 200, body: { valid: false, reason: 'SIM reported stolen' } },
    );
    expect(await operator().validateSerial(ICCID, 'physical')).toEqual({ valid: true });
    expect(await operator().validateSerial(ICCID, 'physical')).toEqual({ valid: false, reason: 'SIM reported stolen' });
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/ops/validate', body: { serial: ICCID, simType: 'physical' } });
    expect(req.headers.authorization).toBe('Bearer op-token-1');
  });

  it('maps a 4xx at validation to a refusal, which the API answers as valid: false', async () => {
    stub.answer(() => ({ status: 403, body: { reason: 'Profile is installed on another device\n' } }));
    await expect(operator().validateSerial('LPA:1$smdp.example.com$X', 'esim')).rejects.toEqual(
      new OperatorRejection('Profile is installed on another device'),
    );
    expect(await askOperator(operator(), 'LPA:1$smdp.example.com$X', 'esim')).toEqual({
      valid: false,
      reason: 'Profile is installed on another device',
    });
  });

  it('maps no answer in time to OperatorTimeout (504) and a 5xx or a dead operator to OperatorUnavailable (502), without retrying', async () => {
    stub.answer(() => 'hang');
    await expect(operator({ timeoutMs: 100 }).validateSerial(ICCID, 'physical')).rejects.toBeInstanceOf(OperatorTimeout);
    await expect(askOperator(operator({ timeoutMs: 100 }), ICCID, 'physical')).rejects.toEqual(new AppError('OPERATOR_TIMEOUT'));
    expect(stub.requests).toHaveLength(2);

    stub.answer(() => ({ status: 503 }));
    await expect(operator().validateSerial(ICCID, 'physical')).rejects.toBeInstanceOf(OperatorUnavailable);
    expect(stub.requests).toHaveLength(3);
    const dead = createHttpOperator({ slug: 'x', baseUrl: `http://127.0.0.1:${await closedPort()}`, supportsEsim: false, timeoutMs: 500 });
    await expect(askOperator(dead, ICCID, 'physical')).rejects.toEqual(new AppError('OPERATOR_UNAVAILABLE'));
  });

  it('treats a 2xx validation without a verdict as unavailable', async () => {
    stub.answer(() => ({ status: 200, body: { ok: 1 } }));
    await expect(operator().validateSerial(ICCID, 'physical')).rejects.toBeInstanceOf(OperatorUnavailable);
  });

  it('activates a SIM with the activation id as the idempotency key, the same on a repeated call', async () => {
    stub.answer(() => ({ status: 200, body: { status: 'active' } }));
    await operator().activateSim({ iccid: ICCID, idempotencyKey: ACTIVATION_ID });
    await operator().activateSim({ iccid: ICCID, idempotencyKey: ACTIVATION_ID });
    expect(stub.requests).toHaveLength(2);
    for (const req of stub.requests) {
      expect(req).toMatchObject({ method: 'POST', path: '/ops/activations', body: { activationId: ACTIVATION_ID, iccid: ICCID } });
      expect(req.headers['idempotency-key']).toBe(ACTIVATION_ID);
      expect(req.headers.authorization).toBe('Bearer op-token-1');
    }
  });

  it('maps a refused activation to OperatorRejection with its reason, and a 5xx to a retryable OperatorUnavailable', async () => {
    stub.answer(() => ({ status: 409, body: { error: { message: 'SIM blocked by the operator' } } }));
    await expect(operator().activateSim({ iccid: ICCID, idempotencyKey: ACTIVATION_ID })).rejects.toEqual(
      new OperatorRejection('SIM blocked by the operator'),
    );
    stub.answer(() => ({ status: 400 }));
    await expect(operator().activateSim({ iccid: ICCID, idempotencyKey: ACTIVATION_ID })).rejects.toEqual(
      new OperatorRejection('Refused by the operator (HTTP 400)'),
    );
    stub.answer(() => ({ status: 500 }));
    await expect(operator().activateSim({ iccid: ICCID, idempotencyKey: ACTIVATION_ID })).rejects.toBeInstanceOf(OperatorUnavailable);
    expect(stub.requests).toHaveLength(3);
  });

  it('issues an eSIM profile: the activation code and the optional ICCID come back', async () => {
    stub.answer((_req, i) =>
      i === 0
        ? { status: 201, body: { activationCode: 'LPA:1$smdp.stc.example$NEW-1', iccid: '8997000000000000001' } }
        : { status: 200, body: { activationCode: 'LPA:1$smdp.stc.example$NEW-2' } },
    );
    const input = { activationCode: 'LPA:1$smdp.example.com$MATCH-1', idempotencyKey: ACTIVATION_ID };
    expect(await operator().issueEsim(input)).toEqual({ activationCode: 'LPA:1$smdp.stc.example$NEW-1', iccid: '8997000000000000001' });
    expect(await operator().issueEsim(input)).toEqual({ activationCode: 'LPA:1$smdp.stc.example$NEW-2' });
    expect(stub.requests[0]).toMatchObject({
      method: 'POST',
      path: '/ops/esim-profiles',
      body: { activationId: ACTIVATION_ID, activationCode: 'LPA:1$smdp.example.com$MATCH-1' },
    });
    expect(stub.requests[0].headers['idempotency-key']).toBe(ACTIVATION_ID);
  });

  it('treats an issued profile without a code, or with a malformed ICCID, as unavailable (retried)', async () => {
    const input = { activationCode: 'LPA:1$smdp.example.com$MATCH-1', idempotencyKey: ACTIVATION_ID };
    stub.answer(() => ({ status: 200, body: {} }));
    await expect(operator().issueEsim(input)).rejects.toBeInstanceOf(OperatorUnavailable);
    stub.answer(() => ({ status: 200, body: { activationCode: 'LPA:1$smdp.example.com$A', iccid: 'not-digits' } }));
    await expect(operator().issueEsim(input)).rejects.toBeInstanceOf(OperatorUnavailable);
  });
});
