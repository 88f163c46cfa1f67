/** createProviders picks each adapter from configuration (real local servers behind the real ones). */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/logger';
import { createProviders } from '../../src/provider-registry';
import type { OutgoingMessage } from '../../src/providers/messages';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';

const sms: OutgoingMessage = { channel: 'sms', to: '+966500000001', purpose: 'otp.login', text: 'Your code is 111111.' };
const email: OutgoingMessage = { channel: 'email', to: 'sara@example.com', purpose: 'otp.login', text: 'Your code is 222222.' };

describe('createProviders', () => {
  const logger = createLogger('silent');
  let dir: string;
  let messagesFile: string;
  let stub: HttpStub;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'providers-'));
    stub = await startHttpStub((req) => {
      if (req.path === '/sms') return { status: 200, body: { messageId: 'm-1' } };
      if (req.path === '/nid/verifications') return { status: 200, body: { transactionId: 'real-tx', randomCode: '55' } };
      if (req.path.endsWith('/validate')) return { status: 200, body: { valid: true } };
      return { status: 404 };
    });
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await stub.close();
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    messagesFile = path.join(dir, `${expect.getState().currentTestName?.replace(/\W+/g, '-')}.jsonl`);
    stub.requests.length = 0;
    smtp.received.length = 0;
  });

  const fileLines = async () => (await readFile(messagesFile, 'utf8').catch(() => '')).split('\n').filter(Boolean);

  it('defaults to the development stand-ins: the messages file, the mock identity provider, the mock operators', async () => {
    const providers = createProviders(loadConfig({ NODE_ENV: 'test', MESSAGES_FILE: messagesFile, MOCK_IDENTITY_DELAY_MS: '0' }), logger);
    await providers.messages.send(sms);
    await providers.messages.send({ ...email, content: { kind: 'otp', code: '222222', ttlSeconds: 300 } });
    const lines = (await fileLines()).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    // The documented line, nothing more.
    expect(Object.keys(lines[1])).toEqual(['at', 'channel', 'to', 'purpose', 'text']);
    expect(lines.map((l) => l.channel)).toEqual(['sms', 'email']);
    const started = await providers.identity.initiate({ idNumber: '1098765430', identityType: 'citizen', reference: 'r' });
    expect(started.transId).toMatch(/^mock\.completed\./);
    expect(await providers.identity.status(started.transId)).toBe('completed');
    expect(providers.operators.get('mock')?.supportsEsim).toBe(true);
    expect(providers.operators.get('mock-noesim')?.supportsEsim).toBe(false);
    expect(stub.requests).toHaveLength(0);
    expect(smtp.received).toHaveLength(0);
  });

  it('switches every real adapter on by configuration', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      MESSAGES_FILE: messagesFile,
      EMAIL_PROVIDER: 'smtp',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_FROM: 'Ops <ops@activation.example>',
      SMS_PROVIDER: 'http',
      SMS_HTTP_URL: `${stub.url}/sms`,
      SMS_HTTP_TOKEN: 'sms-token',
      IDENTITY_PROVIDER: 'http',
      IDENTITY_HTTP_URL: `${stub.url}/nid`,
      IDENTITY_HTTP_TOKEN: 'id-token',
      OPERATOR_PROVIDER: 'http',
      OPERATOR_HTTP_ENDPOINTS: `stc:esim=${stub.url}/stc,zain=${stub.url}/zain`,
      OPERATOR_HTTP_TOKEN: 'op-token',
    });
    const providers = createProviders(config, logger);

    await providers.messages.send(sms);
    await providers.messages.send(email);
    expect(stub.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/sms', 'Bearer sms-token']]);
    expect(smtp.received.map((m) => [m.mailFrom, m.rcptTo])).toEqual([['ops@activation.example', ['sara@example.com']]]);
    expect(await fileLines()).toEqual([]);

    expect(await providers.identity.initiate({ idNumber: '1098765430', identityType: 'citizen', reference: 'r' })).toEqual({
      transId: 'real-tx',
      randomCode: '55',
    });
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer id-token');

    expect(providers.operators.get('mock')).toBeUndefined();
    expect(providers.operators.supportsEsim('stc')).toBe(true);
    expect(providers.operators.supportsEsim('zain')).toBe(false);
    expect(await providers.operators.get('zain')!.validateSerial('8996600000000000009', 'physical')).toEqual({ valid: true });
    expect(stub.requests.at(-1)).toMatchObject({ path: '/zain/validate', headers: { authorization: 'Bearer op-token' } });
  });

  it('keeps the file for the channel that stays on it', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      MESSAGES_FILE: messagesFile,
      EMAIL_PROVIDER: 'smtp',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
    });
    const { messages } = createProviders(config, logger);
    await messages.send(sms);
    await messages.send(email);
    expect((await fileLines()).map((l) => (JSON.parse(l) as { channel: string }).channel)).toEqual(['sms']);
    expect(smtp.received).toHaveLength(1);
  });

  it('stops start-up naming every real adapter that lacks its settings or has a malformed operator list', () => {
    // loadConfig refuses the missing settings itself; the factory checks again for configurations built in code.
    const config = {
      ...loadConfig({ NODE_ENV: 'test', OPERATOR_PROVIDER: 'http', OPERATOR_HTTP_ENDPOINTS: 'stc' }),
      EMAIL_PROVIDER: 'smtp' as const,
      SMS_PROVIDER: 'http' as const,
      IDENTITY_PROVIDER: 'http' as const,
    };
    let error: unknown;
    try {
      createProviders(config, logger);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n')).toEqual([
      'Invalid configuration:',
      '  SMTP_HOST: must be set when EMAIL_PROVIDER=smtp',
      '  SMS_HTTP_URL: must be set when SMS_PROVIDER=http',
      '  IDENTITY_HTTP_URL: must be set when IDENTITY_PROVIDER=http',
      '  OPERATOR_HTTP_ENDPOINTS: "stc": expected slug=https://base or slug:esim=https://base (slug: lowercase letters, digits, -)',
    ]);
  });
});
