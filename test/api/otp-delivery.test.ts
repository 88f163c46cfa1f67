/**
 * Issue 20, OTP messages across a message provider's blip: "With the SMTP server down ...
 * `POST /auth/register` answers 500 INTERNAL_ERROR. A message provider's blip must not fail a request
 * with a 500: OTP messages are retried briefly within the request and then handed to a durable retry
 * (the code stays valid for its 5 minutes), the client gets the spec's answer, and what could not be
 * delivered after the retries is logged and counted."
 *
 * The real app on a real database sends its codes through the SMTP adapter to a real SMTP server on
 * loopback, which is stopped and started again on the same port; the worker's message relay
 * (src/messages/relay.ts) delivers what the requests handed over.
 */
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/logger';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { createMessageRelay, type MessageRelay } from '../../src/messages/relay';
import { createUndeliveredCount } from '../../src/messages/undelivered';
import { createProviders } from '../../src/provider-registry';
import { CONSENTS, errorCode } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../helpers/smtp-server';

jest.setTimeout(60_000);

const REFUSED = 'refused@example.com';
let db: TestDatabase;
let smtp: TestSmtpServer | undefined;
let port: number;
const received: ReceivedMail[] = [];
let app: ReturnType<typeof createApp>;
let relay: MessageRelay;
const undelivered = createUndeliveredCount();
const logLines: string[] = [];

const config = () =>
  loadConfig({
    NODE_ENV: 'test',
    RATE_LIMIT_MAX: '1000000',
    SESSION_CACHE_SECONDS: '0',
    EMAIL_PROVIDER: 'smtp',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(port),
    SMTP_FROM: 'activation-sys <no-reply@activation.example>',
    SMTP_TIMEOUT_MS: '2000',
  });

const smtpUp = async () => {
  smtp = await startSmtpServer({ port, received, refuse: (address) => address === REFUSED });
};
const smtpDown = async () => {
  await smtp?.close();
  smtp = undefined;
};

beforeAll(async () => {
  db = await createTestDatabase();
  await smtpUp();
  port = smtp!.port;
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  const messages = createProviders(config(), logger).messages;
  app = createApp({ config: config(), db: db.sql, logger, messages, undeliveredMessages: undelivered });
  const cipher = createPersonalDataCipher(config().DATA_ENCRYPTION_KEY, config().DATA_HASH_KEY);
  relay = createMessageRelay({
    db: db.sql,
    sender: messages,
    cipher,
    undelivered,
    logger,
    batchSize: 20,
    pollIntervalMs: 60_000,
    maxBackoffMs: 1_000,
  });
});
afterAll(async () => {
  await relay?.stop();
  await (app.locals.stop as () => Promise<void>)();
  await smtpDown();
  await db.drop();
});

interface OutboxRow {
  id: string;
  channel: string;
  purpose: string;
  status: string;
  failure_reason: string | null;
  payload_encrypted: string | null;
  attempts: number;
}
const outbox = () =>
  db.query<OutboxRow>('select id, channel, purpose, status, failure_reason, payload_encrypted, attempts from message_outbox order by id');
const mailTo = (to: string) => received.filter((m) => m.rcptTo.includes(to));
const codeIn = (mail: ReceivedMail) => /code is (\d{6})\./.exec(mail.parsed.text ?? '')?.[1];

describe('with the SMTP server down', () => {
  beforeEach(smtpDown);
  afterEach(async () => {
    if (!smtp) await smtpUp();
    await db.query('delete from message_outbox');
  });

  it('POST /auth/register answers 201; the code is kept encrypted and arrives once the server is back, and verifies', async () => {
    const email = 'sara.outage@example.com';
    const reg = await request(app).post('/auth/register').send({ email, name: 'Sara', consents: CONSENTS });
    expect(reg.status).toBe(201);
    expect(mailTo(email)).toEqual([]);
    const [row] = await outbox();
    expect(row).toMatchObject({ channel: 'email', purpose: 'otp.register', status: 'pending', failure_reason: null });
    // Retried briefly within the request (a 2 s budget), then handed over.
    expect(row.attempts).toBeGreaterThan(1);
    // Never in clear: neither the address nor a six-digit code.
    expect(row.payload_encrypted).toMatch(/^v1\./);
    expect(row.payload_encrypted).not.toContain(email);
    expect(row.payload_encrypted).not.toMatch(/\d{6}/);

    // Still down: the relay keeps it, with its attempt.
    expect(await relay.drain()).toMatchObject({ claimed: 1, failed: 1 });
    expect((await outbox())[0]).toMatchObject({ status: 'pending', attempts: row.attempts + 1 });

    await smtpUp();
    await db.query('update message_outbox set next_attempt_at = now()'); // its backoff passed
    expect(await relay.drain()).toMatchObject({ claimed: 1, sent: 1, failed: 0 });
    expect(await outbox()).toEqual([]); // dropped once sent
    const [mail] = mailTo(email);
    const verify = await request(app)
      .post('/auth/verify-otp')
      .set('X-Client-Type', 'mobile')
      .send({ email, otp: codeIn(mail) });
    expect(verify.status).toBe(200);
  });

  it('POST /auth/login answers 200, and the relay delivers the code that signs the person in', async () => {
    const email = 'ali.outage@example.com';
    await smtpUp();
    const reg = await request(app).post('/auth/register').send({ email, name: 'Ali', consents: CONSENTS });
    expect(reg.status).toBe(201);
    const first = codeIn(mailTo(email)[0]);
    expect((await request(app).post('/auth/verify-otp').set('X-Client-Type', 'mobile').send({ email, otp: first })).status).toBe(200);

    await smtpDown();
    const login = await request(app).post('/auth/login').send({ email });
    expect(login.status).toBe(200);
    expect(mailTo(email)).toHaveLength(1);
    await smtpUp();
    await db.query('update message_outbox set next_attempt_at = now()');
    expect(await relay.drain()).toMatchObject({ sent: 1 });
    const code = codeIn(mailTo(email)[1]);
    expect((await request(app).post('/auth/verify-otp').set('X-Client-Type', 'mobile').send({ email, otp: code })).status).toBe(200);
  });

  it('records a code not delivered before it expired as failed, drops it, counts it, and never sends it', async () => {
    const email = 'late.outage@example.com';
    expect((await request(app).post('/auth/register').send({ email, name: 'Late', consents: CONSENTS })).status).toBe(201);
    const before = undelivered.count();
    await db.query(`update message_outbox set expires_at = now() - interval '1 second', next_attempt_at = now()`);
    await smtpUp();

    expect(await relay.drain()).toMatchObject({ claimed: 1, expired: 1, sent: 0 });
    expect(await outbox()).toEqual([
      expect.objectContaining({ status: 'failed', failure_reason: 'expired', payload_encrypted: null }) as unknown,
    ]);
    expect(undelivered.count()).toBe(before + 1);
    const logged = logLines.filter((l) => l.includes('message not delivered'));
    expect(logged.at(-1)).toContain('"reason":"expired"');
    expect(logLines.join('\n')).not.toContain(email);

    expect(await relay.drain()).toMatchObject({ claimed: 0 });
    expect(mailTo(email)).toEqual([]);
  });
});

it('answers a refused recipient as the spec answers (201): not retried, recorded as failed and counted, no address logged', async () => {
  const before = undelivered.count();
  const reg = await request(app).post('/auth/register').send({ email: REFUSED, name: 'Ali', consents: CONSENTS });
  expect([reg.status, errorCode(reg)]).toEqual([201, undefined]);
  expect(await outbox()).toEqual([
    expect.objectContaining({ status: 'failed', failure_reason: 'refused', payload_encrypted: null }) as unknown,
  ]);
  expect(undelivered.count()).toBe(before + 1);
  expect(logLines.join('\n')).toContain('e-mail not sent: SMTP EENVELOPE 550');
  expect(logLines.join('\n')).not.toContain(REFUSED);
  expect(await relay.drain()).toMatchObject({ claimed: 0 });
  await db.query('delete from message_outbox');
});

it('delivers within the request when the server is back before the retries are spent (nothing handed over)', async () => {
  const email = 'blip@example.com';
  await smtpDown();
  setTimeout(() => void smtpUp(), 150);
  const reg = await request(app).post('/auth/register').send({ email, name: 'Blip', consents: CONSENTS });
  expect(reg.status).toBe(201);
  expect(mailTo(email)).toHaveLength(1);
  expect(await outbox()).toEqual([]);
});
