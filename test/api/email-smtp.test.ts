/**
 * The OTP routes with EMAIL_PROVIDER=smtp, end to end: the real app on a real database sends its
 * codes through the SMTP adapter to a real SMTP server on loopback.
 */
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/logger';
import { createProviders } from '../../src/provider-registry';
import { CONSENTS, errorCode } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';

const REFUSED = 'refused@example.com';

describe('OTP e-mails over SMTP', () => {
  let db: TestDatabase;
  let smtp: TestSmtpServer;
  let app: ReturnType<typeof createApp>;
  const logLines: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpServer({ refuse: (address) => address === REFUSED, credentials: { user: 'mailer', password: 'smtp-pass-9' } });
    const config = loadConfig({
      NODE_ENV: 'test',
      RATE_LIMIT_MAX: '1000000',
      SESSION_CACHE_SECONDS: '0',
      EMAIL_PROVIDER: 'smtp',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_USER: 'mailer',
      SMTP_PASSWORD: 'smtp-pass-9',
      SMTP_FROM: 'activation-sys <no-reply@activation.example>',
      SMTP_TIMEOUT_MS: '3000',
    });
    const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
    app = createApp({ config, db: db.sql, logger, messages: createProviders(config, logger).messages });
  });
  afterAll(async () => {
    await (app.locals.stop as () => Promise<void>)();
    await smtp.close();
    await db.drop();
  });

  it('registers by e-mail: the code arrives in both languages and signs the person in', async () => {
    const email = 'sara.smtp@example.com';
    const reg = await request(app).post('/auth/register').send({ email, name: 'Sara', consents: CONSENTS });
    expect(reg.status).toBe(201);
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.rcptTo).toEqual([email]);
    expect(mail.user).toBe('mailer');
    expect(mail.parsed.subject).toBe('Confirm your activation-sys account | تأكيد حسابك في activation-sys');
    const code = /code is (\d{6})\./.exec(mail.parsed.text ?? '')?.[1];
    expect(mail.parsed.text).toContain(`هو ${code}.`);
    const verify = await request(app).post('/auth/verify-otp').set('X-Client-Type', 'mobile').send({ email, otp: code });
    expect(verify.status).toBe(200);
  });

  // Issue 20: a message the provider refuses is recorded and counted, never a 500 (test/api/otp-delivery.test.ts).
  it('answers a refused recipient with the spec answer (201), and logs no address or password', async () => {
    const reg = await request(app).post('/auth/register').send({ email: REFUSED, name: 'Ali', consents: CONSENTS });
    expect(reg.status).toBe(201);
    expect(errorCode(reg)).toBeUndefined();
    const logged = logLines.join('\n');
    expect(logged).toContain('e-mail not sent: SMTP EENVELOPE 550');
    expect(logged).not.toContain(REFUSED);
    expect(logged).not.toContain('smtp-pass-9');
  });
});
