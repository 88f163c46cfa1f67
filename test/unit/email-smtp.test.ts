/** The SMTP e-mail adapter (nodemailer) against a real SMTP server on loopback (smtp-server + mailparser). */
import { createLogger } from '../../src/http/logger';
import { MessageDeliveryError, type OutgoingMessage } from '../../src/providers/messages';
import { createSmtpMessageSender, smtpTransportOptions, type SmtpOptions } from '../../src/providers/smtp';
import { EMAIL_SEPARATOR } from '../../src/providers/templates';
import { closedPort } from '../helpers/http-stub';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';

const otp: OutgoingMessage = {
  channel: 'email',
  to: 'sara@example.com',
  purpose: 'otp.login',
  text: 'Your activation-sys code is 482913. It expires in 5 minutes.',
  content: { kind: 'otp', code: '482913', ttlSeconds: 300 },
};

const esim: OutgoingMessage = {
  channel: 'email',
  to: 'sara@example.com',
  purpose: 'esim.qr',
  text: 'Your eSIM is ready.',
  content: { kind: 'esim_ready', activationCode: 'LPA:1$smdp.example.com$MATCH-1234' },
};

const failureOf = (promise: Promise<void>): Promise<MessageDeliveryError> =>
  promise.then(
    () => {
      throw new Error('sent, expected a failure');
    },
    (e: unknown) => e as MessageDeliveryError,
  );

describe('e-mail over SMTP', () => {
  let server: TestSmtpServer;
  afterEach(() => server?.close());

  const sender = (over: Partial<SmtpOptions> = {}) =>
    createSmtpMessageSender({
      host: '127.0.0.1',
      port: server.port,
      secure: false,
      from: 'activation-sys <no-reply@activation.example>',
      timeoutMs: 2_000,
      ...over,
    });

  it('delivers an OTP to the recipient from SMTP_FROM, with a UTF-8 subject and both languages', async () => {
    server = await startSmtpServer();
    await sender().send(otp);
    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail.mailFrom).toBe('no-reply@activation.example');
    expect(mail.rcptTo).toEqual(['sara@example.com']);
    expect(mail.parsed.to).toMatchObject({ value: [{ address: 'sara@example.com' }] });
    expect(mail.parsed.from).toMatchObject({ value: [{ address: 'no-reply@activation.example', name: 'activation-sys' }] });
    // The subject travels as RFC 2047 encoded words and decodes to both languages.
    expect(mail.raw).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/im);
    expect(mail.parsed.subject).toBe('Your activation-sys sign-in code | رمز الدخول إلى activation-sys');
    expect(mail.parsed.headers.get('content-language')).toBe('en, ar');
    const [english, arabic] = (mail.parsed.text ?? '')
      .trimEnd()
      .split(EMAIL_SEPARATOR.trim())
      .map((part) => part.trim());
    expect(english).toBe(
      'Your activation-sys code is 482913. It expires in 5 minutes.\n\nNever share this code with anyone. If you did not ask for it, ignore this message.',
    );
    expect(arabic).toBe(
      'رمز التحقق الخاص بك في activation-sys هو 482913. تنتهي صلاحيته خلال 5 دقائق.\n\nلا تشارك هذا الرمز مع أي شخص. إذا لم تطلبه، تجاهل هذه الرسالة.',
    );
  });

  it("sends the recipient's language alone when the caller knows it", async () => {
    server = await startSmtpServer();
    await sender().send({ ...esim, language: 'ar' });
    const [mail] = server.received;
    expect(mail.parsed.subject).toBe('شريحتك الإلكترونية (eSIM) جاهزة');
    expect(mail.parsed.headers.get('content-language')).toBe('ar');
    expect(mail.parsed.text?.trim()).toBe(
      'شريحتك الإلكترونية (eSIM) جاهزة.\n\nامسح رمز QR الخاص بها في تطبيق activation-sys، أو أضفها يدويًا في هاتفك برمز التفعيل التالي:\n\nLPA:1$smdp.example.com$MATCH-1234',
    );
  });

  it('sends the eSIM e-mail in both languages with the activation code in each', async () => {
    server = await startSmtpServer();
    await sender().send(esim);
    const [mail] = server.received;
    expect(mail.parsed.subject).toBe('Your eSIM is ready | شريحتك الإلكترونية (eSIM) جاهزة');
    expect(mail.parsed.text).toContain('Your eSIM is ready.');
    expect(mail.parsed.text).toContain('امسح رمز QR');
    expect(mail.parsed.text?.match(/LPA:1\$smdp\.example\.com\$MATCH-1234/g)).toHaveLength(2);
    // The QR code as an inline image (Content-ID referenced by the HTML part), the code as text.
    const [image] = mail.parsed.attachments;
    expect([image.contentType, image.cid, image.contentDisposition]).toEqual(['image/png', 'esim-qr@activation-sys', 'inline']);
    expect(image.content.subarray(1, 4).toString()).toBe('PNG');
    // mailparser inlines a cid: reference as a data URL.
    expect(mail.parsed.html).toMatch(/<img src="(cid:esim-qr@activation-sys|data:image\/png;base64,)/);
    expect(mail.parsed.html).toContain('LPA:1$smdp.example.com$MATCH-1234');
  });

  it('logs in with SMTP_USER and SMTP_PASSWORD, and logs neither the password nor the recipient', async () => {
    server = await startSmtpServer({ credentials: { user: 'mailer', password: 's3cret-pass' } });
    const lines: string[] = [];
    const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
    await sender({ user: 'mailer', password: 's3cret-pass', logger }).send(otp);
    expect(server.received[0].user).toBe('mailer');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ msg: 'e-mail accepted by the SMTP server', channel: 'email', purpose: 'otp.login' });
    expect(lines.join('')).not.toMatch(/s3cret-pass|sara@example\.com|482913/);
  });

  it('surfaces a wrong password as a delivery error', async () => {
    server = await startSmtpServer({ credentials: { user: 'mailer', password: 's3cret-pass' } });
    const err = await failureOf(sender({ user: 'mailer', password: 'wrong-pass' }).send(otp));
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.message).toBe('e-mail not sent: SMTP EAUTH 535');
    expect(server.received).toHaveLength(0);
  });

  it('surfaces a refused recipient as a permanent delivery error that does not name the address', async () => {
    server = await startSmtpServer({ refuse: (address) => address === 'sara@example.com' });
    const err = await failureOf(sender().send(otp));
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.message).toBe('e-mail not sent: SMTP EENVELOPE 550');
    expect(err.permanent).toBe(true);
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain('sara@example.com');
    expect(server.received).toHaveLength(0);
  });

  it('surfaces a server that is down', async () => {
    server = await startSmtpServer();
    const err = await failureOf(sender({ port: await closedPort() }).send(otp));
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.message).toBe('e-mail not sent: SMTP ESOCKET');
    expect(err.permanent).toBe(false);
  });

  it('gives up on a server that stops answering within SMTP_TIMEOUT_MS', async () => {
    server = await startSmtpServer({ stallOnData: true });
    const started = Date.now();
    const err = await failureOf(sender({ timeoutMs: 300 }).send(otp));
    expect(err).toBeInstanceOf(MessageDeliveryError);
    expect(err.message).toMatch(/^e-mail not sent: SMTP timed out \((ETIMEDOUT|EABORT)\)$/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('requires STARTTLS for a login to a remote server without implicit TLS (not on loopback)', () => {
    const base = { port: 587, secure: false, from: 'a <a@example.com>', timeoutMs: 1_000, user: 'mailer', password: 'p' };
    expect(smtpTransportOptions({ ...base, host: 'smtp.example.com' }).requireTLS).toBe(true);
    expect(smtpTransportOptions({ ...base, host: 'smtp.example.com', secure: true }).requireTLS).toBe(false);
    expect(smtpTransportOptions({ ...base, host: 'smtp.example.com', user: undefined }).requireTLS).toBe(false);
    expect(smtpTransportOptions({ ...base, host: '127.0.0.1' }).requireTLS).toBe(false);
    expect(smtpTransportOptions({ ...base, host: 'localhost' }).requireTLS).toBe(false);
  });
});
