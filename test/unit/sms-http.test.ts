/** The SMS gateway adapter against a local HTTP stub that records what it received. */
import { createLogger } from '../../src/http/logger';
import { MessageDeliveryError, type OutgoingMessage } from '../../src/providers/messages';
import { createHttpSmsSender, type HttpSmsOptions } from '../../src/providers/sms-http';
import { closedPort, startHttpStub, type HttpStub } from '../helpers/http-stub';

const otp: OutgoingMessage = {
  channel: 'sms',
  to: '+966500000001',
  purpose: 'otp.login',
  text: 'Your activation-sys code is 123456. It expires in 5 minutes.',
  content: { kind: 'otp', code: '123456', ttlSeconds: 300 },
};

describe('SMS over HTTP', () => {
  let stub: HttpStub;
  beforeEach(async () => {
    stub = await startHttpStub();
  });
  afterEach(() => stub.close());

  const sender = (over: Partial<HttpSmsOptions> = {}) =>
    createHttpSmsSender({
      url: `${stub.url}/v1/sms`,
      token: 'sms-token-1',
      senderId: 'ActivSys',
      timeoutMs: 10_000, // a loaded box may be slow to answer the first request; timeout tests set their own
      retries: 2,
      backoffMs: 5,
      ...over,
    });

  it('posts the documented JSON with the bearer token and an idempotency reference, bilingual when no language is known', async () => {
    stub.answer(() => ({ status: 200, body: { messageId: 'gw-1' } }));
    await sender().send(otp);
    expect(stub.requests).toHaveLength(1);
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/sms' });
    expect(req.headers.authorization).toBe('Bearer sms-token-1');
    expect(req.headers['content-type']).toBe('application/json');
    const body = req.body as { to: string; senderId: string; text: string; reference: string };
    expect(Object.keys(body).sort()).toEqual(['reference', 'senderId', 'text', 'to']);
    expect(body).toMatchObject({ to: '+966500000001', senderId: 'ActivSys' });
    expect(body.reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.headers['idempotency-key']).toBe(body.reference);
    expect(body.text).toBe(
      'Your activation-sys code is 123456. It expires in 5 minutes. Never share it.\nرمز activation-sys الخاص بك هو 123456، صالح لمدة 5 دقائق. لا تشاركه مع أحد.',
    );
  });

  it("sends only the recipient's language when the caller names it, and the caller's text for an unknown message", async () => {
    await sender().send({ ...otp, language: 'ar' });
    await sender().send({ channel: 'sms', to: '+966500000002', purpose: 'other', text: 'Plain text' });
    expect((stub.requests[0].body as { text: string }).text).toBe(
      'رمز activation-sys الخاص بك هو 123456، صالح لمدة 5 دقائق. لا تشاركه مع أحد.',
    );
    expect((stub.requests[1].body as { text: string }).text).toBe('Plain text');
  });

  it('retries a 5xx with the same reference and succeeds, logging neither token nor recipient nor text', async () => {
    stub.answer((_req, i) => (i < 2 ? { status: i === 0 ? 503 : 500 } : { status: 202, body: { messageId: 'gw-2' } }));
    const lines: string[] = [];
    await sender({ logger: createLogger('debug', { write: (line: string) => void lines.push(line) }) }).send(otp);
    expect(lines.map((l) => JSON.parse(l) as { msg: string; messageId?: string })).toEqual([
      expect.objectContaining({ msg: 'provider call failed, retrying', attempt: 1, status: 503 }),
      expect.objectContaining({ msg: 'provider call failed, retrying', attempt: 2, status: 500 }),
      expect.objectContaining({ msg: 'SMS accepted by the gateway', messageId: 'gw-2', purpose: 'otp.login' }),
    ]);
    expect(lines.join('')).not.toMatch(/sms-token-1|966500000001|123456/);
    expect(stub.requests).toHaveLength(3);
    const references = stub.requests.map((r) => (r.body as { reference: string }).reference);
    expect(new Set(references).size).toBe(1);
    expect(new Set(stub.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('gives up after SMS_HTTP_RETRIES retries with a delivery error that names no recipient', async () => {
    stub.answer(() => ({ status: 502, body: { error: 'upstream down for +966500000001' } }));
    const err = (await sender({ retries: 1 })
      .send(otp)
      .catch((e: unknown) => e)) as MessageDeliveryError;
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.permanent).toBe(false);
    expect(err.message).toBe('SMS not sent: sms gateway unavailable: HTTP 502 after 2 attempts');
    expect(stub.requests).toHaveLength(2);
  });

  it('does not retry a 4xx refusal', async () => {
    stub.answer(() => ({ status: 422, body: { error: { message: 'invalid number' } } }));
    const err = (await sender()
      .send(otp)
      .catch((e: unknown) => e)) as MessageDeliveryError;
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.permanent).toBe(true);
    expect(err.message).toBe('SMS not sent: gateway refused (HTTP 422)');
    expect(stub.requests).toHaveLength(1);
  });

  it('times out a gateway that does not answer, retrying within the budget, then fails', async () => {
    stub.answer(() => 'hang');
    const started = Date.now();
    // Long enough that a stalled event loop never aborts an attempt before the stub has seen it.
    const err = (await sender({ timeoutMs: 500, retries: 1 })
      .send(otp)
      .catch((e: unknown) => e)) as MessageDeliveryError;
    expect(err.message).toBe('SMS not sent: sms gateway unavailable: timeout after 2 attempts');
    expect(stub.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails cleanly when the gateway is down', async () => {
    const port = await closedPort();
    const err = (await sender({ url: `http://127.0.0.1:${port}/sms`, retries: 0 })
      .send(otp)
      .catch((e: unknown) => e)) as MessageDeliveryError;
    expect(err.message).toBe('SMS not sent: sms gateway unavailable: network after 1 attempt');
  });

  it('refuses an e-mail', async () => {
    await expect(sender().send({ ...otp, channel: 'email', to: 'a@example.com' })).rejects.toThrow(MessageDeliveryError);
    expect(stub.requests).toHaveLength(0);
  });
});
