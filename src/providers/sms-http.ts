import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HttpRefused, HttpUnavailable, requestJson } from './http';
import { MessageDeliveryError, type MessageSender } from './messages';
import { renderSms } from './templates';

export interface HttpSmsOptions {
  url: string;
  token?: string;
  senderId: string;
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/**
 * SMS through an HTTP gateway. The contract (docs/configuration.md, Real adapters):
 *
 *   POST {SMS_HTTP_URL}
 *   Authorization: Bearer {SMS_HTTP_TOKEN}
 *   Idempotency-Key: {reference}
 *   { "to": "+9665…", "senderId": "ActivSys", "text": "…", "reference": "<uuid>" }
 *   2xx { "messageId": "…" }   accepted (messageId optional, logged)
 *   4xx                         refused: not retried
 *   408/425/429/5xx, timeout    retried up to SMS_HTTP_RETRIES times with backoff,
 *                               with the same reference (one SMS from a gateway that honours it)
 *
 * Every failure reaches the caller as MessageDeliveryError.
 */
export function createHttpSmsSender(options: HttpSmsOptions): MessageSender {
  const policy = { timeoutMs: options.timeoutMs, retries: options.retries, backoffMs: options.backoffMs, logger: options.logger };
  return {
    async send(message) {
      if (message.channel !== 'sms') throw new MessageDeliveryError(message.channel, 'the SMS gateway only sends SMS', true);
      const reference = randomUUID();
      let body: unknown;
      try {
        ({ body } = await requestJson(
          {
            provider: 'sms gateway',
            method: 'POST',
            url: options.url,
            token: options.token,
            idempotencyKey: reference,
            body: { to: message.to, senderId: options.senderId, text: renderSms(message), reference },
          },
          policy,
        ));
      } catch (err) {
        if (err instanceof HttpRefused) throw new MessageDeliveryError('sms', `gateway refused (HTTP ${err.status})`, true);
        if (err instanceof HttpUnavailable) throw new MessageDeliveryError('sms', err.message, false);
        throw err;
      }
      const messageId = typeof body === 'object' && body !== null ? (body as { messageId?: unknown }).messageId : undefined;
      options.logger?.info(
        { channel: 'sms', purpose: message.purpose, reference, messageId: typeof messageId === 'string' ? messageId : undefined },
        'SMS accepted by the gateway',
      );
    },
  };
}
