import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { MessageDeliveryError, type MessageSender } from './messages';
import { activationCodeQrPng } from '../lib/qr';
import { renderEmail } from './templates';

const tracer = trace.getTracer('activation-sys/smtp');

/** Content-ID of the eSIM e-mail's inline QR image. */
export const QR_CID = 'esim-qr@activation-sys';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The plain-text body as HTML paragraphs (each language's block keeps its own direction: `dir="auto"`). */
function htmlParagraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((block) => `<p dir="auto">${escapeHtml(block).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

export interface SmtpOptions {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS whenever the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  /** `Name <address>`: the From header and the envelope sender. */
  from: string;
  /** Bounds the connection, the greeting, every wait on the socket, and the whole send. */
  timeoutMs: number;
  logger?: Pick<Logger, 'info'>;
}

interface SmtpFailure {
  code?: unknown;
  responseCode?: unknown;
  permanent?: unknown;
  name?: unknown;
}

/**
 * What went wrong, without the server's reply text or the addresses: nodemailer's own message
 * quotes the refused recipient ("... rejected: 550 <someone@example.com>"), and this one is logged
 * and stored in Temporal history.
 */
function deliveryError(err: unknown): MessageDeliveryError {
  const failure: SmtpFailure = typeof err === 'object' && err !== null ? err : {};
  const code = typeof failure.code === 'string' ? failure.code : 'EUNKNOWN';
  const reply = typeof failure.responseCode === 'number' ? ` ${failure.responseCode}` : '';
  const timedOut = code === 'ETIMEDOUT' || code === 'EABORT' || failure.name === 'AbortError';
  // nodemailer marks a 5yz reply (but 503) as permanent: sending the same message again gets the same answer.
  const permanent = failure.permanent === true;
  return new MessageDeliveryError('email', timedOut ? `SMTP timed out (${code})` : `SMTP ${code}${reply}`, permanent);
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * nodemailer's transport options. With a login and no TLS from the start, STARTTLS is required
 * (the password never crosses the network in clear, even if the offer is stripped), except on
 * loopback, where a local relay or test server may not offer it.
 */
export function smtpTransportOptions(options: SmtpOptions) {
  const login = options.user !== undefined;
  return {
    host: options.host,
    port: options.port,
    secure: options.secure,
    requireTLS: login && !options.secure && !LOOPBACK.test(options.host),
    auth: login ? { user: options.user, pass: options.password ?? '' } : undefined,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    logger: false,
    debug: false,
    // Messages are built from our own text: never read files or URLs named in one.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * E-mail through an SMTP server with nodemailer. One connection per message (no pool: nothing
 * idles between OTPs, and a broken connection never outlives its message). The subject is UTF-8
 * (RFC 2047 encoded words for Arabic), the body plain text in the recipient's language or both.
 * No retries here: the OTP route answers the failure at once and the person may ask again; the
 * eSIM e-mail activity is retried by Temporal. Nodemailer's logger stays off, so neither the
 * password nor the message reaches a log.
 */
export function createSmtpMessageSender(options: SmtpOptions): MessageSender {
  const transport = nodemailer.createTransport(smtpTransportOptions(options));
  return {
    async send(message) {
      if (message.channel !== 'email') throw new MessageDeliveryError(message.channel, 'the SMTP sender only sends e-mail', true);
      const { subject, text, language } = renderEmail(message);
      // The eSIM e-mail carries its QR code as an inline image beside the code as text (both languages).
      const qr = message.content?.kind === 'esim_ready' ? await activationCodeQrPng(message.content.activationCode) : undefined;
      let info: { messageId?: string };
      // A client span for the send (tracing on): SMTP carries no trace context, but the time and the outcome show.
      const span = tracer.startSpan('smtp send', {
        kind: SpanKind.CLIENT,
        attributes: { 'server.address': options.host, 'server.port': options.port, 'network.protocol.name': 'smtp' },
      });
      try {
        info = await transport.sendMail({
          from: options.from,
          to: message.to,
          subject,
          text,
          ...(qr
            ? {
                html: `${htmlParagraphs(text)}<p><img src="cid:${QR_CID}" alt="eSIM QR code" width="256" height="256"></p>`,
                attachments: [
                  { filename: 'esim-qr.png', content: qr, contentType: 'image/png', cid: QR_CID, contentDisposition: 'inline' as const },
                ],
              }
            : {}),
          headers: { 'Content-Language': language },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        const failure = deliveryError(err);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
        throw failure;
      } finally {
        span.end();
      }
      options.logger?.info({ channel: 'email', purpose: message.purpose, messageId: info.messageId }, 'e-mail accepted by the SMTP server');
    },
  };
}
